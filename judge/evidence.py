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
# Where a value is kept, by JAX's names of the memories: the accelerator's own, or the page-locked
# host memory an offloading policy moves it to. Reports before the judge read memories say nothing:
# every residual they list was read as on the device.
DEVICE = "device"
MEMORY_KINDS = (DEVICE, "pinned_host")


@dataclass(frozen=True)
class Aval:
    """An array's type, as a program declares it."""

    dtype: str
    shape: list[int]
    bytes: int | None = None  # the verifier counts them; the child's output types leave them out
    memory: str = DEVICE  # one of MEMORY_KINDS

    def to_dict(self) -> dict:
        found = {"dtype": self.dtype, "shape": list(self.shape)}
        found |= {} if self.bytes is None else {"bytes": self.bytes}
        return found if self.memory == DEVICE else found | {"memory": self.memory}

    @classmethod
    def from_dict(cls, data: dict) -> Aval:
        return cls(data.get("dtype", ""), list(data.get("shape", [])), data.get("bytes"), data.get("memory", DEVICE))


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
    kept_by: int | None = None  # the index of the checkpoint whose policy kept it
    memory: str = DEVICE  # where it is kept between the passes: one of MEMORY_KINDS
    # Where the submission wrote it: [line, column, end line, end column] of the expression
    # (the child reads it from the equation's traceback; None: not in the submission's file).
    span: list[int] | None = None
    # In the learner's terms (``judge.learner_terms``, from their source): the expression as they
    # wrote it ("jax.nn.relu(x @ w1)") and the operation they called ("relu", "@", "**"); empty
    # when unknown (a stored report from before: ``what`` is shown as it was).
    expr: str = ""
    op: str = ""
    in_terms: bool = False  # read so (else: a report from before, whose ``what`` is shown as it was)

    @property
    def offloaded(self) -> bool:
        return self.memory != DEVICE

    def expression(self) -> tuple | None:
        """The expression of the learner's code that made it, as a key: the values one expression
        made (a derivative rule's several) are shown as one row, in messages and tables alike.
        None: a value shown on its own (an argument, a name, or one read before learner terms)."""
        return (self.line, self.expr, self.stacked) if self.kind == "primitive" and self.expr else None

    def origin(self) -> str:
        """Where it comes from, as a table's cell: "argument w1 (an input, kept)", "jax.nn.relu(x @ w1) (relu)"."""
        if self.kind == "argument":
            text = f"argument {self.what} (an input, kept)"
        elif self.kind == "primitive" and self.in_terms:
            text = self._written()
        else:
            text = _ORIGINS[self.kind][1].format(what=self.what) if self.kind in _ORIGINS else self.kind
        return text + (f" (x{self.stacked} scan steps)" if self.stacked else "")

    def phrase(self) -> str:
        """The residual as a message names it: "f32[8,16] from jax.nn.relu(x @ w1) (relu) at line 6"."""
        if self.kind == "primitive" and self.in_terms:
            where = f"from {self._written()}" if self.expr else self._written()
        elif self.kind == "argument":
            where = f"the argument {self.what} (an input, kept)"
        else:
            where = _ORIGINS[self.kind][0].format(what=self.what) if self.kind in _ORIGINS else f"a {self.kind}"
        if self.stacked:
            where += f", stacked over {self.stacked} scan steps"
        line = f" at line {self.line}" if self.line else ""
        return f"{self.type} {where}{line}"

    def _written(self) -> str:
        if not self.expr:
            return f"output of {self.op}" if self.op else "an intermediate value JAX computes for your code"
        if not self.op or self.op == self.expr:
            return f"`{self.expr}`"
        return f"`{self.expr}` ({self.op})"

    def to_dict(self) -> dict:
        found = {"kind": self.kind, "what": self.what, "line": self.line}
        if self.policy_saved:
            found["policy_saved"] = True
        if self.stacked is not None:
            found["stacked"] = self.stacked
        if self.kept_by is not None:
            found["kept_by"] = self.kept_by
        if self.offloaded:
            found["memory"] = self.memory
        for key in ("span", "expr", "op", "in_terms"):
            if getattr(self, key):
                found[key] = getattr(self, key)
        return found | {"dtype": self.dtype, "shape": list(self.shape), "type": self.type, "bytes": self.bytes}

    @classmethod
    def from_dict(cls, data: dict) -> Residual:
        return cls(
            kind=data.get("kind", ""),
            what=data.get("what", ""),
            line=data.get("line"),
            dtype=data.get("dtype", ""),
            shape=list(data.get("shape", [])),
            type=data.get("type", ""),
            bytes=data.get("bytes", 0),
            policy_saved=bool(data.get("policy_saved")),
            stacked=data.get("stacked"),
            memory=data.get("memory", DEVICE),
            span=data.get("span"),
            expr=data.get("expr", ""),
            op=data.get("op", ""),
            in_terms=bool(data.get("in_terms")),
        )


@dataclass
class ResidualRow(Residual):
    """A residual as the report lists it: the submission's own, or one it misses (``line`` None)."""

    offending: bool = False
    reason: str = ""  # why it is marked, in the learner's terms

    def to_dict(self) -> dict:
        return super().to_dict() | {"offending": self.offending, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict) -> ResidualRow:
        return cls(
            **vars(Residual.from_dict(data)), offending=bool(data.get("offending")), reason=data.get("reason", "")
        )


# Where a checkpoint's policy comes from: JAX's own policy object (or one JAX's factories make
# from JAX's own), the submission's own function or class, or JAX's class with fields of other types.
POLICY_ORIGINS = ("jax", "yours", "forged")


@dataclass(frozen=True)
class Checkpoint:
    """One ``jax.checkpoint`` of the program."""

    policy: list  # its policy's canonical form on the wire (``policy_names.to_wire``)
    policy_text: str  # the policy as a learner writes it
    prevent_cse: bool
    line: int | None
    parent: int | None  # the index of the checkpoint it is nested in
    depth: int  # 0 for a checkpoint nested in none
    in_loop: bool | None  # inside a scan or loop body (None: not known)
    encloses: dict[str, int]  # primitives it contains, counted
    on_path: bool | None = None  # something in it is on the differentiated path (None: not known)
    policy_origin: str = "jax"  # one of POLICY_ORIGINS
    policy_line: int | None = None  # where the submission defines its own policy

    def to_dict(self) -> dict:
        return {
            "policy": self.policy,
            "prevent_cse": self.prevent_cse,
            "line": self.line,
            "parent": self.parent,
            "depth": self.depth,
            "in_loop": self.in_loop,
            "encloses": dict(self.encloses),
            "policy_text": self.policy_text,
            "on_path": self.on_path,
            "policy_origin": self.policy_origin,
            "policy_line": self.policy_line,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Checkpoint:
        return cls(
            policy=data.get("policy", []),
            policy_text=data.get("policy_text", ""),
            prevent_cse=bool(data.get("prevent_cse")),
            line=data.get("line"),
            parent=data.get("parent"),
            depth=data.get("depth", 0),
            in_loop=data.get("in_loop"),
            encloses=dict(data.get("encloses", {})),
            on_path=data.get("on_path"),
            policy_origin=data.get("policy_origin", "jax"),
            policy_line=data.get("policy_line"),
        )


@dataclass(frozen=True)
class CustomDerivative:
    """A derivative the program defines by hand (not one of JAX's own functions')."""

    kind: str  # custom_jvp, custom_vjp, linear_call...
    line: int | None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "line": self.line}


@dataclass(frozen=True)
class OnPath:
    """Operations on the differentiated path: a primitive, at a line, inside these checkpoints."""

    primitive: str
    line: int | None
    checkpoints: tuple[int, ...]  # the indices of the checkpoints enclosing it, outermost first
    count: int

    def to_list(self) -> list:
        return [self.primitive, self.line, list(self.checkpoints), self.count]


@dataclass(frozen=True)
class Structure:
    """A program's checkpoints, the derivatives it writes by hand, its primitives, and which of
    them are on the differentiated path."""

    checkpoints: list[Checkpoint] = field(default_factory=list)
    custom_derivatives: list[CustomDerivative] = field(default_factory=list)
    primitives: dict[str, int] = field(default_factory=dict)
    on_path: list[OnPath] = field(default_factory=list)

    @property
    def backward_rules(self) -> list[CustomDerivative]:
        """The hand-written derivatives that replace reverse mode: a custom JVP only defines the
        forward derivative, and reverse mode and the policy still decide what is saved."""
        return [d for d in self.custom_derivatives if d.kind != "custom_jvp"]

    def to_dict(self) -> dict:
        return {
            "checkpoints": [c.to_dict() for c in self.checkpoints],
            "custom_derivatives": [d.to_dict() for d in self.custom_derivatives],
            "primitives": dict(self.primitives),
            "on_path": [o.to_list() for o in self.on_path],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Structure:
        custom = [CustomDerivative(c.get("kind", ""), c.get("line")) for c in data.get("custom_derivatives", [])]
        custom += [CustomDerivative("custom_vjp", c.get("line")) for c in data.get("custom_vjp", [])]  # older reports
        return cls(
            [Checkpoint.from_dict(c) for c in data.get("checkpoints", [])],
            custom,
            dict(data.get("primitives", {})),
            [OnPath(p, line, tuple(within), n) for p, line, within, n in data.get("on_path", [])],
        )


# The revision of the rules that count a step's FLOPs and peak bytes (``judge.inspection.cost``).
# Figures stored under an older one were counted by rules since corrected; the site measures them
# again (``manage.py remeasure_figures``). 2: every primitive counts (before, only dot_general and
# scan did: convolutions, elementwise work and while bodies cost nothing). 3: measured by the verifier
# on the program it compiled (``judge.inspection.program_cost``), never by the submission's child:
# a ``jit`` call's results counted once, ``lax.ragged_dot`` as the product over every group XLA runs.
COST_REVISION = 3


@dataclass(frozen=True)
class Step:
    """One operation of a gradient step, in the order it runs (``judge.inspection.cost``)."""

    primitive: str
    line: int | None  # the submission's line that made it, when it did
    live_bytes: int  # bytes alive while it runs, as the step's peak counts them
    backward: bool
    recomputed: bool  # on the backward pass, made from saved or input values only: recomputation

    def to_list(self) -> list:
        return [self.primitive, self.line, self.live_bytes, self.backward, self.recomputed]


@dataclass(frozen=True)
class Span:
    """A saved residual over the step: where it is made (-1: an input, alive from the start) and
    the first and last operations of the backward pass that read it (None: none reads it)."""

    index: int  # its place in the residual list
    bytes: int
    made: int
    first_use: int | None
    last_use: int | None

    def to_list(self) -> list:
        return [self.index, self.bytes, self.made, self.first_use, self.last_use]


@dataclass(frozen=True)
class Timeline:
    """Live bytes over one gradient step: the walk that counts ``Cost.peak_bytes``, step by step."""

    steps: list[Step] = field(default_factory=list)
    residuals: list[Span] = field(default_factory=list)
    backward_from: int = 0  # the first step of the backward pass
    start_bytes: int = 0  # the inputs, alive before the first step

    @property
    def peak_bytes(self) -> int:
        return max([self.start_bytes] + [s.live_bytes for s in self.steps])

    def to_dict(self) -> dict:
        return {
            "steps": [s.to_list() for s in self.steps],
            "residuals": [r.to_list() for r in self.residuals],
            "backward_from": self.backward_from,
            "start_bytes": self.start_bytes,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Timeline:
        return cls(
            [Step(*s) for s in data.get("steps", [])],
            [Span(*r) for r in data.get("residuals", [])],
            data.get("backward_from", 0),
            data.get("start_bytes", 0),
        )


@dataclass(frozen=True)
class Cost:
    """One whole gradient step, as the verifier measured it on the program it compiled; the
    timeline (the memory picture) is the child's, wording only."""

    flops: float | None = None
    peak_bytes: int | None = None
    xla_flops: float | None = None  # XLA's flops and transcendentals of the compiled step
    xla_temp_bytes: int | None = None
    xla_peak_bytes: int | None = None
    # The most bytes of saved and recomputed values the backward pass holds at once
    # (``judge.inspection.memory``), and the same for the program without its checkpoints.
    held_peak_bytes: int | None = None
    plain_held_peak_bytes: int | None = None
    held_host_bytes: int | None = None  # residuals an offloading policy keeps in host memory (None: none)
    revision: int | None = None  # the COST_REVISION that counted flops and peak_bytes; None: before revisions
    timeline: Timeline | None = None  # how peak_bytes came about; None in reports from before it

    def to_dict(self) -> dict:
        found = {name: value for name, value in vars(self).items() if value is not None and name != "timeline"}
        return found | ({"timeline": self.timeline.to_dict()} if self.timeline is not None else {})

    @classmethod
    def from_dict(cls, data: dict) -> Cost:
        found = {name: data[name] for name in cls.__dataclass_fields__ if name in data and name != "timeline"}
        timeline = data.get("timeline")
        return cls(**found, timeline=Timeline.from_dict(timeline) if isinstance(timeline, dict) else None)
