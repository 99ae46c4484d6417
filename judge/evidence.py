"""What a traced program shows, typed: the types of its outputs, the residuals it saves, its
checkpoints and the cost of a gradient step.

The child reports these (``judge.messages`` parses what it sends, refusing what does not fit),
the rules judge them (``judge.rules``) and the report stores them (``judge.report``). ``to_dict``
writes the JSON keys reports have always had; ``from_dict`` reads them back, filling what an
older report did not have yet, so that every stored report still reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# How a residual's origin reads, by its kind: in a sentence of a message, and in a table's cell.
_ORIGINS = {
    "argument": ("the argument {what}", "argument {what}"),
    "named": ("the value named '{what}'", "named '{what}'"),
    "primitive": ("output of {what}", "output of {what}"),
}


@dataclass(frozen=True)
class Aval:
    """An array's type, as a program declares it."""
    dtype: str
    shape: list[int]
    bytes: int | None = None  # the verifier counts them; the child's output types leave them out

    def to_dict(self) -> dict:
        found = {"dtype": self.dtype, "shape": list(self.shape)}
        return found if self.bytes is None else found | {"bytes": self.bytes}

    @classmethod
    def from_dict(cls, data: dict) -> Aval:
        return cls(data.get("dtype", ""), list(data.get("shape", [])), data.get("bytes"))


@dataclass
class Residual:
    """One value reverse mode saves for the backward pass, and where it comes from."""
    kind: str  # argument, named (checkpoint_name), primitive, constant or literal
    what: str  # the argument's name, the name given, or the primitive (a custom_jvp/vjp: its function)
    line: int | None  # the line of the submission that made it, when it did
    dtype: str
    shape: list[int]
    type: str  # dtype and shape as JAX writes them: f32[8,16]
    bytes: int
    policy_saved: bool = False  # a checkpoint's policy chose to keep it
    stacked: int | None = None  # a scan's per-step value, stacked over this many steps

    def origin(self) -> str:
        """Where it comes from, as a table's cell: "argument w1", "output of dot_general (x4 scan steps)"."""
        text = _ORIGINS[self.kind][1].format(what=self.what) if self.kind in _ORIGINS else self.kind
        return text + (f" (x{self.stacked} scan steps)" if self.stacked else "")

    def phrase(self) -> str:
        """The residual as a message names it: "f32[8,16] output of relu at line 6"."""
        where = _ORIGINS[self.kind][0].format(what=self.what) if self.kind in _ORIGINS else f"a {self.kind}"
        if self.stacked:
            where += f", stacked over {self.stacked} scan steps"
        line = f" at line {self.line}" if self.line else ""
        return f"{self.type} {where}{line}"

    def to_dict(self) -> dict:
        found = {"kind": self.kind, "what": self.what, "line": self.line}
        if self.policy_saved:
            found["policy_saved"] = True
        if self.stacked is not None:
            found["stacked"] = self.stacked
        return found | {"dtype": self.dtype, "shape": list(self.shape), "type": self.type, "bytes": self.bytes}

    @classmethod
    def from_dict(cls, data: dict) -> Residual:
        return cls(kind=data.get("kind", ""), what=data.get("what", ""), line=data.get("line"),
                   dtype=data.get("dtype", ""), shape=list(data.get("shape", [])), type=data.get("type", ""),
                   bytes=data.get("bytes", 0), policy_saved=bool(data.get("policy_saved")),
                   stacked=data.get("stacked"))


@dataclass
class ResidualRow(Residual):
    """A residual as the report lists it: the submission's own, or one it misses (``line`` None)."""
    offending: bool = False
    reason: str = ""  # why it is marked, in the learner's terms

    def to_dict(self) -> dict:
        return super().to_dict() | {"offending": self.offending, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict) -> ResidualRow:
        return cls(**vars(Residual.from_dict(data)), offending=bool(data.get("offending")),
                   reason=data.get("reason", ""))


@dataclass(frozen=True)
class Checkpoint:
    """One ``jax.checkpoint`` of the forward program."""
    policy: list  # its policy's canonical form on the wire (``policy_names.to_wire``)
    policy_text: str  # the policy as a learner writes it
    prevent_cse: bool
    line: int | None
    parent: int | None  # the index of the checkpoint it is nested in
    depth: int  # 0 for a checkpoint nested in none
    feeds_output: bool | None  # its result reaches the function's output unchanged (None: not known)
    in_loop: bool | None  # inside a scan or loop body (None: not known)
    encloses: dict[str, int]  # primitives it contains, counted

    def to_dict(self) -> dict:
        return {"policy": self.policy, "prevent_cse": self.prevent_cse, "line": self.line, "parent": self.parent,
                "depth": self.depth, "feeds_output": self.feeds_output, "in_loop": self.in_loop,
                "encloses": dict(self.encloses), "policy_text": self.policy_text}

    @classmethod
    def from_dict(cls, data: dict) -> Checkpoint:
        return cls(policy=data.get("policy", []), policy_text=data.get("policy_text", ""),
                   prevent_cse=bool(data.get("prevent_cse")), line=data.get("line"), parent=data.get("parent"),
                   depth=data.get("depth", 0), feeds_output=data.get("feeds_output"), in_loop=data.get("in_loop"),
                   encloses=dict(data.get("encloses", {})))


@dataclass(frozen=True)
class Structure:
    """The checkpoints of a forward program, its hand-written custom_vjp calls, its primitives."""
    checkpoints: list[Checkpoint] = field(default_factory=list)
    custom_vjp_lines: list[int | None] = field(default_factory=list)  # one per custom_vjp call
    primitives: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"checkpoints": [c.to_dict() for c in self.checkpoints],
                "custom_vjp": [{"line": line} for line in self.custom_vjp_lines], "primitives": dict(self.primitives)}

    @classmethod
    def from_dict(cls, data: dict) -> Structure:
        return cls([Checkpoint.from_dict(c) for c in data.get("checkpoints", [])],
                   [c.get("line") for c in data.get("custom_vjp", [])], dict(data.get("primitives", {})))


@dataclass(frozen=True)
class Cost:
    """One whole gradient step: ours from the traced program, XLA's estimates beside them."""
    flops: float | None = None
    peak_bytes: int | None = None
    xla_flops: float | None = None
    xla_temp_bytes: int | None = None
    xla_peak_bytes: int | None = None

    def to_dict(self) -> dict:
        return {name: value for name, value in vars(self).items() if value is not None}

    @classmethod
    def from_dict(cls, data: dict) -> Cost:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})
