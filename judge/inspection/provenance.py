"""What reverse mode saves for the backward pass, and where each residual comes from.

``saved_residuals`` follows ``jax.saved_residuals``' method, but looks through ``jit`` calls,
``scan`` bodies and the ``reduce_precision`` that checkpoints insert, so that ``@jax.jit`` on a
submission does not change what the learner is told: each residual is an argument, a
``checkpoint_name`` value, or the output of a primitive at a line of the submission.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ..specs import short_type
from .jax_internals import (CALLS, NAME, REDUCE_PRECISION, _closed, _inner_jaxpr, _line_of, _make_jaxpr,
                            _primitive_label, _tree_leaves, _vjp, jex_core)


def _aval_fields(aval) -> dict:
    dtype = np.dtype(aval.dtype).name
    shape = [int(d) for d in aval.shape]
    return {"dtype": dtype, "shape": shape, "type": short_type(dtype, shape),
            "bytes": int(np.prod(shape, dtype=np.int64)) * np.dtype(aval.dtype).itemsize}


class _Resolver:
    """Finds where a residual comes from, following it into calls and scan bodies."""

    def __init__(self, filename: str, arg_names):
        self.filename, self.arg_names = filename, list(arg_names)

    def top(self, jaxpr, var) -> dict:
        return self.resolve(jaxpr, var, lambda i: {"kind": "argument", "what": self.arg_names[i], "line": None})

    def resolve(self, jaxpr, var, from_invar) -> dict:
        if isinstance(var, jex_core.Literal):
            return {"kind": "literal", "what": repr(var.val), "line": None}
        if var in jaxpr.invars:
            return from_invar(jaxpr.invars.index(var))
        if var in jaxpr.constvars:
            return {"kind": "constant", "what": "constant", "line": None}
        for eqn in jaxpr.eqns:
            if var in eqn.outvars:
                return self._from_eqn(jaxpr, eqn, eqn.outvars.index(var), from_invar)
        return {"kind": "constant", "what": "unknown", "line": None}

    def _from_eqn(self, jaxpr, eqn, index, from_invar) -> dict:
        outer = partial(self._outer_operand, jaxpr, eqn, from_invar)
        name = eqn.primitive.name
        if eqn.primitive is REDUCE_PRECISION:
            # A checkpoint puts this on every floating-point value its policy saves; the producer
            # is what the learner wrote, and the mark tells the rules a policy chose to keep it.
            return dict(self.resolve(jaxpr, eqn.invars[0], from_invar), policy_saved=True)
        if eqn.primitive is NAME:
            return {"kind": "named", "what": str(eqn.params["name"]), "line": _line_of(eqn.source_info, self.filename)}
        if name in CALLS:
            inner = _inner_jaxpr(eqn)
            if inner is not None:
                return self.resolve(inner, inner.outvars[index], outer)
        if name == "scan":
            inner = _closed(eqn.params["jaxpr"])
            num_consts, num_carry = eqn.params["num_consts"], eqn.params["num_carry"]
            if index >= num_carry:  # a stacked per-iteration output: look at what the body made

                def body_invar(i):
                    if num_consts <= i < num_consts + num_carry:
                        return {"kind": "primitive", "what": "scan carry", "line": _line_of(eqn.source_info, self.filename)}
                    return outer(i)

                found = self.resolve(inner, inner.outvars[index], body_invar)
                return dict(found, stacked=int(eqn.params["length"]))
        return {"kind": "primitive", "what": _primitive_label(eqn), "line": _line_of(eqn.source_info, self.filename)}

    def _outer_operand(self, jaxpr, eqn, from_invar, i) -> dict:
        return self.resolve(jaxpr, eqn.invars[i], from_invar)


def _split(args, wrt):
    """Close over everything not differentiated, keeping array arguments as traced inputs."""
    wrt = tuple(wrt)
    others = [i for i in range(len(args)) if i not in wrt]

    def with_all(fn):
        def traced(*flat):
            diff, rest = flat[:len(wrt)], flat[len(wrt):]
            full = list(args)
            for i, v in zip(wrt, diff):
                full[i] = v
            for i, v in zip(others, rest):
                full[i] = v
            return fn(*full)
        return traced

    return with_all, [args[i] for i in wrt], [args[i] for i in others], others


def saved_residuals(fn, args, wrt, arg_names, filename: str) -> list[dict]:
    """What ``jax.vjp(fn)`` saves, with respect to the arguments at positions ``wrt``.

    ``args`` holds arrays; static values must already be bound into ``fn``.
    """
    with_all, diff, rest, others = _split(args, wrt)
    traced = with_all(fn)

    def forward(*flat):
        diff_part, rest_part = flat[:len(diff)], flat[len(diff):]
        return _vjp(lambda *d: traced(*d, *rest_part), *diff_part)

    closed, shape = _make_jaxpr(forward, return_shape=True)(*diff, *rest)
    jaxpr = closed.jaxpr
    num_res = len(_tree_leaves(shape[1]))
    names = [arg_names[i] for i in wrt] + [arg_names[i] for i in others]
    resolver = _Resolver(filename, names)
    out = []
    for var in jaxpr.outvars[len(jaxpr.outvars) - num_res:]:
        entry = resolver.top(jaxpr, var)
        entry.update(_aval_fields(var.aval))
        out.append(entry)
    return out
