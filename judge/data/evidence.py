"""What a traced program shows, typed: the types of its outputs, the residuals it saves, its
checkpoints and the cost of a gradient step.

The child builds these and sends them (``judge.data.messages``), the rules judge them (``judge.grading.rules``)
and the report stores them (``judge.data.report``). Each is declared once, here: ``judge.data.records``
writes and reads it from its fields, strictly from a child, leniently from a stored report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .records import Record, choice, parent_only, positional

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
class Aval(Record):
    """An array's type, as a program declares it."""

    dtype: str
    shape: list[int]
    bytes: int | None = None  # the verifier counts them; the child's output types leave them out
    memory: str = choice(MEMORY_KINDS, default=DEVICE)


@dataclass
class Residual(Record):
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
    memory: str = choice(MEMORY_KINDS, default=DEVICE)  # where it is kept between the passes
    # Where the submission wrote it: [line, column, end line, end column] of the expression
    # (the child reads it from the equation's traceback; None: not in the submission's file).
    span: list[int] | None = None
    # In the learner's terms (``judge.grading.learner_terms``, from their source): the expression as they
    # wrote it ("jax.nn.relu(x @ w1)") and the operation they called ("relu", "@", "**"); empty
    # when unknown (a stored report from before: ``what`` is shown as it was). The parent reads
    # them from its own copy of the source: a child cannot word them.
    expr: str = parent_only(default="")
    op: str = parent_only(default="")
    in_terms: bool = parent_only(default=False)  # read so (else: a report from before: ``what`` as it was)

    def _check(self) -> str | None:
        if self.span is not None and not (len(self.span) == 4 and all(v >= 0 for v in self.span)):
            return "span: where in the source is four numbers, none negative"
        return None

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


@dataclass
class ResidualRow(Residual):
    """A residual as the report lists it: the submission's own, or one it misses (``line`` None)."""

    offending: bool = False
    reason: str = ""  # why it is marked, in the learner's terms


# Where a checkpoint's policy comes from: JAX's own policy object (or one JAX's factories make
# from JAX's own), the submission's own function or class, or JAX's class with fields of other types.
POLICY_ORIGINS = ("jax", "yours", "forged")


@dataclass(frozen=True)
class Checkpoint(Record):
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
    policy_origin: str = choice(POLICY_ORIGINS, default="jax")
    policy_line: int | None = None  # where the submission defines its own policy

    def _check(self) -> str | None:
        from . import policy_names

        try:
            policy_names.from_wire(self.policy)
        except (TypeError, IndexError, ValueError, RecursionError):
            return "policy: not a policy's canonical form"
        return None


@dataclass(frozen=True)
class CustomDerivative(Record):
    """A derivative the program defines by hand (not one of JAX's own functions')."""

    kind: str  # custom_jvp, custom_vjp, linear_call...
    line: int | None


@positional
@dataclass(frozen=True)
class OnPath(Record):
    """Operations on the differentiated path: a primitive, at a line, inside these checkpoints."""

    primitive: str
    line: int | None
    checkpoints: tuple[int, ...]  # the indices of the checkpoints enclosing it, outermost first
    count: int


@dataclass(frozen=True)
class Structure(Record):
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

    def _check(self) -> str | None:
        if any(not 0 <= i < len(self.checkpoints) for o in self.on_path for i in o.checkpoints):
            return "on_path: inside a checkpoint the program does not have"
        return None

    @staticmethod
    def _upgrade(data: dict) -> dict:
        """Reports before custom JVPs were told apart listed the hand-written VJPs alone."""
        if "custom_vjp" not in data or not isinstance(data["custom_vjp"], list):
            return data
        older = [{"kind": "custom_vjp", "line": c.get("line")} for c in data["custom_vjp"] if isinstance(c, dict)]
        return data | {"custom_derivatives": list(data.get("custom_derivatives") or []) + older}


# The revision of the rules that count a step's FLOPs and peak bytes (``judge.inspection.cost``).
# Figures stored under an older one were counted by rules since corrected; the site measures them
# again (``manage.py remeasure_figures``). 2: every primitive counts (before, only dot_general and
# scan did: convolutions, elementwise work and while bodies cost nothing). 3: measured by the verifier
# on the program it compiled (``judge.inspection.program_cost``), never by the submission's child:
# a ``jit`` call's results counted once, ``lax.ragged_dot`` as the product over every group XLA runs.
# 4: a ``lax.composite`` costs what its decomposition runs (it was one operation per element), and a
# while loop whose trips the program does not show is reported (``Cost.uncounted_loops``). 5: a library
# call that does work (a LAPACK routine behind ``jnp.linalg``) is reported by its target
# (``Cost.opaque_calls``); it was counted as one operation per element it made. 6: a convolution's taps
# that land on padding or on the holes of a dilated input are no products (they were counted: a strided,
# dilated, grouped convolution cost 2.6 times what XLA runs), and a while loop over a counter that steps
# down, or compared with its bound on the left, is counted by its trips (it was one trip, uncounted).
COST_REVISION = 6


@positional
@dataclass(frozen=True)
class Step(Record):
    """One operation of a gradient step, in the order it runs (``judge.inspection.cost``)."""

    primitive: str
    line: int | None  # the submission's line that made it, when it did
    live_bytes: int  # bytes alive while it runs, as the step's peak counts them
    backward: bool
    recomputed: bool  # on the backward pass, made from saved or input values only: recomputation


@positional
@dataclass(frozen=True)
class Span(Record):
    """A saved residual over the step: where it is made (-1: an input, alive from the start) and
    the first and last operations of the backward pass that read it (None: none reads it)."""

    index: int  # its place in the residual list
    bytes: int
    made: int
    first_use: int | None
    last_use: int | None


@dataclass(frozen=True)
class Timeline(Record):
    """Live bytes over one gradient step: the walk that counts ``Cost.peak_bytes``, step by step."""

    steps: list[Step] = field(default_factory=list)
    residuals: list[Span] = field(default_factory=list)
    backward_from: int = 0  # the first step of the backward pass
    start_bytes: int = 0  # the inputs, alive before the first step

    @property
    def peak_bytes(self) -> int:
        return max([self.start_bytes] + [s.live_bytes for s in self.steps])

    def _check(self) -> str | None:
        if any(
            x is not None and not -1 <= x < len(self.steps)
            for r in self.residuals
            for x in (r.made, r.first_use, r.last_use)
        ):
            return "residuals: a step the timeline does not have"
        return None


@dataclass(frozen=True)
class Cost(Record):
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
    # While loops whose number of trips the program does not show (a bound computed from data): each is
    # counted as one trip in ``flops``, which is then a lower bound. None: none (or a report from before).
    uncounted_loops: int | None = None
    # Library calls whose work the program does not show (a LAPACK routine, a host callback), by target:
    # ``flops`` leaves their work out. None: none (or a report from before).
    opaque_calls: tuple[str, ...] | None = None
    revision: int | None = None  # the COST_REVISION that counted flops and peak_bytes; None: before revisions
    timeline: Timeline | None = None  # how peak_bytes came about; None in reports from before it
