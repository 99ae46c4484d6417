"""Every ``jax.checkpoint`` in the forward program: its policy, what it encloses, its nesting, and
whether it feeds the output or sits in a loop."""
from __future__ import annotations

from collections import Counter

from .. import policy_names
from .jax_internals import CALLS, CUSTOM_CALLS, LOOPS, REMAT, _closed, _inner_jaxpr, _line_of, _make_jaxpr, \
    _primitive_label, jex_core
from .policies import describe_policy


# Operations after which a value is still "the output" for memory purposes: their backward
# pass needs no residual, so a checkpoint feeding only them is recomputed at once on the way back.
OUTPUT_PRESERVING = {"reduce_sum", "reshape", "squeeze", "expand_dims", "broadcast_in_dim",
                     "convert_element_type", "transpose", "neg", "copy", "copy_p", "add", "sub",
                     "add_any", "slice", "reduce_precision"}


def _final_vars(jaxpr, final_outvars) -> set:
    """Variables that reach the output through output-preserving operations only."""
    final = {v for v in final_outvars if isinstance(v, jex_core.Var)}
    for eqn in reversed(jaxpr.eqns):
        if eqn.primitive.name in OUTPUT_PRESERVING and any(v in final for v in eqn.outvars):
            final.update(v for v in eqn.invars if isinstance(v, jex_core.Var))
    return final


class _StructureWalker:
    def __init__(self, filename: str):
        self.filename = filename
        self.total, self.checkpoints, self.custom_vjps = Counter(), [], []

    def walk(self, jaxpr, counter: Counter, parent, depth: int, final_outvars, in_loop: bool = False) -> None:
        final = _final_vars(jaxpr, final_outvars)
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            if eqn.primitive is REMAT:
                self._checkpoint(eqn, counter, parent, depth, final, in_loop)
                continue
            counter[_primitive_label(eqn) if name in CUSTOM_CALLS else name] += 1
            if name.startswith("custom_vjp"):
                self.custom_vjps.append({"line": _line_of(eqn.source_info, self.filename)})
            inner = _inner_jaxpr(eqn) if name in CALLS else None
            if inner is not None:  # a jit body's outputs are the call's outputs
                passed = [iv for iv, ov in zip(inner.outvars, eqn.outvars) if ov in final]
                self.walk(inner, counter, parent, depth, passed, in_loop)
                continue
            loop = in_loop or name in LOOPS
            for sub in jex_core.jaxprs_in_params(eqn.params):
                self.walk(sub, counter, parent, depth, (), loop)

    def _checkpoint(self, eqn, counter: Counter, parent, depth: int, final: set, in_loop: bool) -> None:
        prevent_cse = eqn.params.get("prevent_cse")
        record = {
            "policy": describe_policy(eqn.params.get("policy")),
            "prevent_cse": bool(prevent_cse is True or (isinstance(prevent_cse, tuple) and all(prevent_cse))),
            "line": _line_of(eqn.source_info, self.filename),
            "parent": parent,
            "depth": depth,
            "feeds_output": any(v in final for v in eqn.outvars),
            "in_loop": in_loop,
        }
        self.checkpoints.append(record)
        inner = Counter()
        body = _closed(eqn.params["jaxpr"])
        passed = [iv for iv, ov in zip(body.outvars, eqn.outvars) if ov in final]
        self.walk(body, inner, len(self.checkpoints) - 1, depth + 1, passed, in_loop)
        record["encloses"] = dict(inner)
        counter.update(inner)
        counter[eqn.primitive.name] += 1


def checkpoint_structure(fn, args, filename: str) -> dict:
    closed = _make_jaxpr(fn)(*args)
    walker = _StructureWalker(filename)
    walker.walk(closed.jaxpr, walker.total, None, 0, closed.jaxpr.outvars)
    for record in walker.checkpoints:
        record["policy_text"] = policy_names.render(record["policy"])
        record["policy"] = policy_names.to_wire(record["policy"])
    return {"checkpoints": walker.checkpoints, "custom_vjp": walker.custom_vjps, "primitives": dict(walker.total)}
