"""The one trace of a case, and the one differentiation of it.

A submission's entry point runs once per case: ``trace`` records the program it builds (a jaxpr).
Everything the judge concludes about the case is read from that program, replayed by JAX's own
interpreter without calling the submission's Python again: its structure, what reverse mode
saves, the cost, and the programs exported for the verifier. What a traced program still holds
as Python is what runs while it is differentiated (checkpoint policies, the rules of custom
derivatives), so it is differentiated exactly once (``differentiate``) and every later reading
comes from the two programs that produces: the forward one, which returns the outputs and the
residuals, and the backward one, from residuals and cotangents to gradients.

Checkpoints are marked before that differentiation (``mark``): each gets, in its name stack (the
scope names JAX keeps on every operation it derives from it, ``jvp(...)``, ``transpose(...)``),
a token drawn in this process, which no submission can know. So a residual computed inside
checkpoint ``k``'s forward part and read by its backward part is one its policy chose to keep:
read from the rematerialization JAX performed, not from a mark a submission could write. Only
names change: the program, its values and its residuals are JAX's own (tested).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

from .jax_internals import (
    REMAT,
    RematTraced,
    _current_name_stack,
    _eval_jaxpr,
    _jaxpr_as_fun,
    _make_jaxpr,
    _ShapeDtypeStruct,
    _tree_flatten,
    _tree_unflatten,
    _user_context,
    _vjp,
    is_remat,
    jex_core,
    nested_programs,
)


def trace(fn, arrays):
    """The program of one case: the only call of the submission's entry point."""
    return _make_jaxpr(fn)(*arrays)


def structs(avals) -> list:
    return [_ShapeDtypeStruct(a.shape, a.dtype) for a in avals]


@dataclass
class Marked:
    """A program whose checkpoints carry tokens in their name stacks, numbered in the order
    ``structure`` walks them (depth first, in the order of equations and their parameters)."""

    program: object  # ClosedJaxpr
    checkpoints: list = field(default_factory=list)  # the original checkpoint equations, by token
    prefix: str = ""

    def tokens(self, eqn) -> list[int]:
        """The checkpoints an equation was derived from, outermost first."""
        if not self.checkpoints:
            return []
        found = re.findall(re.escape(self.prefix) + r"(\d+)", str(eqn.source_info.name_stack))
        return list(dict.fromkeys(int(k) for k in found if int(k) < len(self.checkpoints)))


def mark(closed, policy_for) -> Marked:
    """``closed`` with a fresh token in each checkpoint's name stack, and its policy replaced by
    ``policy_for(equation)`` (JAX's own object when the policy is one of JAX's)."""
    marked = Marked(closed, [], f"judge{secrets.token_hex(8)}_")

    def rewritten(jaxpr):
        eqns = []
        for eqn in jaxpr.eqns:
            if is_remat(eqn):
                index = len(marked.checkpoints)
                marked.checkpoints.append(eqn)
                policy = policy_for(eqn)
                if eqn.primitive is REMAT:
                    params = dict(eqn.params, jaxpr=rewritten(eqn.params["jaxpr"]), policy=policy)
                else:
                    body = eqn.params["_prim"].jaxpr
                    params = dict(eqn.params, _prim=RematTraced(body.replace(jaxpr=rewritten(body.jaxpr)), policy))
                names = eqn.source_info.name_stack.extend(f"{marked.prefix}{index}")
                eqns.append(eqn.replace(params=params, source_info=eqn.source_info.replace(name_stack=names)))
            elif nested_programs(eqn):
                eqns.append(
                    eqn.replace(params=_with_programs(eqn.params, lambda c: c.replace(jaxpr=rewritten(c.jaxpr))))
                )
            else:
                eqns.append(eqn)
        return jaxpr.replace(eqns=eqns)

    marked.program = closed.replace(jaxpr=rewritten(closed.jaxpr))
    return marked


def _with_programs(params: dict, rewrite) -> dict:
    """``params`` with the programs they hold (the ones ``nested_programs`` walks) rewritten by
    ``rewrite`` (a closed program to a closed program)."""
    found = dict(params)
    for key, value in params.items():
        if isinstance(value, jex_core.ClosedJaxpr):
            found[key] = rewrite(value)
        elif isinstance(value, tuple) and value and all(isinstance(v, jex_core.ClosedJaxpr) for v in value):
            programs = [rewrite(v) for v in value]
            found[key] = type(value)(*programs) if hasattr(value, "_fields") else tuple(programs)
    return found


def without_checkpoints(closed):
    """``closed`` with every checkpoint inlined: the program as it would be without ``jax.checkpoint``."""

    def on_remat(eqn, params, invals, rewrite):
        if eqn.primitive is REMAT:
            return _eval_jaxpr(rewrite.open(params["jaxpr"]), (), *invals)
        body = rewrite.closed(params["_prim"].jaxpr)
        return _eval_jaxpr(body.jaxpr, body.consts, *invals)

    return _Rewrite(on_remat=on_remat).closed(closed)


class _Rewrite:
    """Replays a program under ``make_jaxpr`` equation by equation, with the same source
    information, rewriting the programs nested in equations first; ``on_remat`` binds what
    replaces a checkpoint."""

    def __init__(self, on_remat):
        self.on_remat = on_remat

    def closed(self, closed):
        return _make_jaxpr(lambda *args: self._run(closed.jaxpr, closed.consts, args))(*structs(closed.in_avals))

    def open(self, jaxpr):
        """A checkpoint's body: an open jaxpr without constants."""
        rewritten = self.closed(jex_core.ClosedJaxpr(jaxpr, []))
        if rewritten.consts:  # pragma: no cover - JAX closes a checkpoint's body over no constants
            raise ValueError("a checkpoint's body gained constants")
        return rewritten.jaxpr

    def _params(self, eqn) -> dict:
        if not nested_programs(eqn):  # a custom derivative's programs are its rules' inputs: kept
            return dict(eqn.params)
        return _with_programs(eqn.params, self.closed)

    def _run(self, jaxpr, consts, args):
        env = {}

        def read(v):
            return v.val if isinstance(v, jex_core.Literal) else env[v]

        env.update(zip(jaxpr.constvars, consts))
        env.update(zip(jaxpr.invars, args))
        for eqn in jaxpr.eqns:
            invals = [read(v) for v in eqn.invars]
            name_stack = _current_name_stack() + eqn.source_info.name_stack
            with _user_context(eqn.source_info.traceback, name_stack=name_stack), eqn.ctx.manager:
                if is_remat(eqn):
                    outs = self.on_remat(eqn, dict(eqn.params), invals, self)
                else:
                    outs = eqn.primitive.bind(*invals, **eqn.primitive.get_bind_params(self._params(eqn)))
                    if not eqn.primitive.multiple_results:
                        outs = [outs]
            env.update(zip(eqn.outvars, outs))
        return [read(v) for v in jaxpr.outvars]


@dataclass
class Derivative:
    """The one differentiation of a case: ``fwd`` (arrays -> outputs, residuals) and ``bwd``
    (residuals, cotangents -> gradients with respect to ``wrt``)."""

    fwd: object
    bwd: object
    n_out: int

    @property
    def residual_avals(self) -> list:
        return list(self.fwd.out_avals[self.n_out :])

    @property
    def output_avals(self) -> list:
        return list(self.fwd.out_avals[: self.n_out])


def differentiate(program, arrays, wrt) -> Derivative:
    """Reverse mode over ``program`` with respect to the arrays at ``wrt``: the only time the
    policies and custom rules it holds run."""
    fn = _jaxpr_as_fun(program)
    trees: dict = {}

    def forward(*flat):
        def of_diff(*diff):
            full = list(flat)
            for i, value in zip(wrt, diff):
                full[i] = value
            return fn(*full)

        out, vjp_fn = _vjp(of_diff, *(flat[i] for i in wrt))
        outs, trees["out"] = _tree_flatten(out)
        res, trees["res"] = _tree_flatten(vjp_fn)
        return outs, res

    fwd = _make_jaxpr(forward)(*arrays)
    n_out = trees["out"].num_leaves

    def backward(res, cotangents):
        vjp_fn = _tree_unflatten(trees["res"], list(res))
        return list(vjp_fn(_tree_unflatten(trees["out"], list(cotangents))))

    bwd = _make_jaxpr(backward)(structs(fwd.out_avals[n_out:]), structs(fwd.out_avals[:n_out]))
    return Derivative(fwd, bwd, n_out)
