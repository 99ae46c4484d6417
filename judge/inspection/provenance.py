"""What reverse mode saves for the backward pass, where each residual comes from, and which
checkpoint kept it.

Read from the case's one differentiation (``replay.differentiate`` of the marked program): each
residual of the forward program is followed back, through calls, checkpoints and ``scan``
bodies, to what made it: an argument, a ``checkpoint_name`` value, or the output of a primitive
at a line of the submission; the memory it is kept in ("device", or "pinned_host" for a value an
offloading policy moved there) is read from the residual itself, and the move is looked through.
A residual made by checkpoint ``k``'s forward part (its token is in
the name stack of what made it, or of a call around that) and read by its backward part was kept
by that checkpoint's policy (``kept_by``); nothing the submission writes can say so, since the
token is drawn after it ran. A ``reduce_precision`` at a dtype's full precision changes no value
and is looked through.
"""

from __future__ import annotations

import numpy as np

from ..data.specs import short_type
from .jax_internals import (
    CUSTOM_DERIVATIVES,
    HI_PRIMITIVE,
    NAME,
    REDUCE_PRECISION,
    CheckpointName,
    _primitive_label,
    _span_of,
    bodies,
    full_precision,
    jex_core,
    memory_kind,
    moves_memory,
)


def aval_fields(var) -> dict:
    aval = var.aval
    dtype = np.dtype(aval.dtype).name
    shape = [int(d) for d in aval.shape]
    return {
        "dtype": dtype,
        "shape": shape,
        "type": short_type(dtype, shape),
        "bytes": int(np.prod(shape, dtype=np.int64)) * np.dtype(aval.dtype).itemsize,
        "memory": memory_kind(var),
    }


class _Resolver:
    """Finds where a value comes from, and inside which marked checkpoints it was made."""

    def __init__(self, filename: str, marked):
        self.filename, self.marked = filename, marked

    def resolve(self, jaxpr, var, from_invar, within: tuple) -> dict:
        if isinstance(var, jex_core.Literal):
            return {"kind": "literal", "what": repr(var.val), "line": None, "within": within}
        if var in jaxpr.invars:
            return from_invar(jaxpr.invars.index(var))
        if var in jaxpr.constvars:
            return {"kind": "constant", "what": "constant", "line": None, "within": within}
        for eqn in jaxpr.eqns:
            if var in eqn.outvars:
                return self._from_eqn(jaxpr, eqn, eqn.outvars.index(var), from_invar, within)
        return {"kind": "constant", "what": "unknown", "line": None, "within": within}

    def _from_eqn(self, jaxpr, eqn, index, from_invar, outside) -> dict:
        def outer(i):
            return self.resolve(jaxpr, eqn.invars[i], from_invar, outside)

        within = outside + tuple(k for k in self.marked.tokens(eqn) if k not in outside)
        name = eqn.primitive.name
        span = _span_of(eqn.source_info, self.filename)
        line = span[0] if span else None
        if eqn.primitive is REDUCE_PRECISION and full_precision(eqn):
            return self.resolve(jaxpr, eqn.invars[0], from_invar, outside)
        if moves_memory(eqn):  # an offloaded value is the value it copies; where it lives is read apart
            return self.resolve(jaxpr, eqn.invars[index], from_invar, outside)
        if eqn.primitive is NAME:
            return {"kind": "named", "what": str(eqn.params["name"]), "line": line, "within": within}
        if name == HI_PRIMITIVE and type(eqn.params.get("_prim")) is CheckpointName:
            return {"kind": "named", "what": str(eqn.params["_prim"].params["name"]), "line": line, "within": within}
        found = [] if name in CUSTOM_DERIVATIVES else bodies(eqn)  # named by the function they wrap
        if name == "scan":
            body = found[0]
            num_consts, num_carry = eqn.params["num_consts"], eqn.params["num_carry"]
            if index < num_carry:
                return {"kind": "primitive", "what": "scan", "line": line, "within": within}

            def body_invar(i):
                if num_consts <= i < num_consts + num_carry:
                    return {"kind": "primitive", "what": "scan carry", "line": line, "within": within}
                return outer(i)

            return dict(
                self.resolve(body.jaxpr, body.jaxpr.outvars[index], body_invar, within),
                stacked=int(eqn.params["length"]),
            )
        if len(found) == 1 and not found[0].carries and name not in ("cond", "while"):
            body = found[0].jaxpr
            return self.resolve(body, body.outvars[index], outer, within)
        return {"kind": "primitive", "what": _primitive_label(eqn), "line": line, "within": within, "span": span}


def _readers(jaxpr, var, marked) -> set:
    """The marked checkpoints whose backward part reads ``var``."""
    found = set()
    for eqn in jaxpr.eqns:
        positions = [i for i, v in enumerate(eqn.invars) if v is var]
        if not positions:
            continue
        found.update(marked.tokens(eqn))
        for body in bodies(eqn):
            for b, i in enumerate(body.operands):
                if i in positions:
                    found |= _readers(body.jaxpr, body.jaxpr.invars[b], marked)
    return found


def saved_residuals(derivative, marked, arg_names, filename: str) -> list[dict]:
    """Each residual of the forward program: provenance, type, and ``kept_by`` (the index of the
    checkpoint whose policy kept it, or None)."""
    fwd, bwd = derivative.fwd.jaxpr, derivative.bwd.jaxpr
    resolver = _Resolver(filename, marked)
    out = []
    for j, var in enumerate(fwd.outvars[derivative.n_out :]):
        entry = resolver.resolve(
            fwd, var, lambda i: {"kind": "argument", "what": arg_names[i], "line": None, "within": ()}, ()
        )
        readers = _readers(bwd, bwd.invars[j], marked)
        within = entry.pop("within")
        kept = [k for k in within if k in readers] if entry["kind"] not in ("argument", "constant", "literal") else []
        entry["kept_by"] = kept[0] if kept else None
        entry["policy_saved"] = bool(kept)
        entry.update(aval_fields(var))
        out.append(entry)
    return out
