"""Every ``jax.checkpoint`` of a case's program: its policy (known by identity), where it is,
whether it is on the differentiated path, what it encloses; the operations on that path and the
checkpoints around each; and the derivatives the program defines by hand.

Walked in the order ``replay.mark`` numbers the checkpoints, so that the index of a checkpoint
here is the token a residual's ``kept_by`` names.
"""

from __future__ import annotations

from collections import Counter

from ..data import policy_names
from .derivatives import hand_written
from .jax_internals import (
    CUSTOM_DERIVATIVES,
    HI_PRIMITIVE,
    LOOPS,
    _line_of,
    _primitive_label,
    is_remat,
    nested_programs,
    remat_body,
)


class _Walker:
    def __init__(self, filename: str, policies: dict, active: set):
        self.filename, self.policies, self.active = filename, policies, active
        self.checkpoints: list[dict] = []
        self.custom: list[dict] = []
        self.total: Counter = Counter()
        self.inside: Counter = Counter()  # (primitive, enclosing checkpoints) -> count
        self.on_path: Counter = Counter()  # (primitive, line, enclosing checkpoints) -> count

    def walk(self, jaxpr, enclosing: tuple, in_loop: bool) -> None:
        for eqn in jaxpr.eqns:
            if is_remat(eqn):
                self._checkpoint(eqn, enclosing, in_loop)
                continue
            name = eqn.primitive.name
            label = _primitive_label(eqn)
            self.total[label] += 1
            custom = hand_written(eqn, self.filename)
            if custom is not None:
                self.custom.append(custom)
            if name in CUSTOM_DERIVATIVES or name == HI_PRIMITIVE or not nested_programs(eqn):
                self.inside[(label, enclosing)] += 1
                if id(eqn) in self.active:
                    self.on_path[(label, _line_of(eqn.source_info, self.filename), enclosing)] += 1
                continue
            for sub in nested_programs(eqn):
                self.walk(sub, enclosing, in_loop or name in LOOPS)

    def _checkpoint(self, eqn, enclosing: tuple, in_loop: bool) -> None:
        policy = self.policies[id(eqn)]
        prevent_cse = eqn.params.get("prevent_cse", True)
        index = len(self.checkpoints)
        record = {
            "policy": policy_names.to_wire(policy.canonical),
            "policy_text": policy.text,
            "policy_origin": policy.origin,
            "policy_line": policy.line,
            "prevent_cse": bool(prevent_cse is True or (isinstance(prevent_cse, tuple) and all(prevent_cse))),
            "line": _line_of(eqn.source_info, self.filename),
            "parent": enclosing[-1] if enclosing else None,
            "depth": len(enclosing),
            "in_loop": in_loop,
            "on_path": id(eqn) in self.active,
        }
        self.checkpoints.append(record)
        self.walk(remat_body(eqn), enclosing + (index,), in_loop)


def checkpoint_structure(closed, policies: dict, active: set, filename: str) -> dict:
    walker = _Walker(filename, policies, active)
    walker.walk(closed.jaxpr, (), False)
    for index, record in enumerate(walker.checkpoints):
        enclosed = Counter()
        for (label, enclosing), count in walker.inside.items():
            if index in enclosing:
                enclosed[label] += count
        record["encloses"] = dict(enclosed)
    return {
        "checkpoints": walker.checkpoints,
        "custom_derivatives": walker.custom,
        "primitives": dict(walker.total),
        "on_path": [
            [label, line, list(enclosing), count] for (label, line, enclosing), count in walker.on_path.items()
        ],
    }
