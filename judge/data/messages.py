"""The messages between the grader and the children it starts, typed: one declaration each.

Every message is a record (``judge.data.records``) with a ``kind``: the parent sends a ``trace`` request
(``ChildRequest``) to the submission's child and a ``verify`` request (``VerifyRequest``) to the
verifier; the child answers ``traced`` or ``failed``, the verifier ``verified``, ``mismatched`` or
``failed``; a child whose sandbox could not be set up says ``sandbox_error``. Each receiving side
handles one kind with one function (``judge.in_child.child.HANDLERS``). What comes back was written by a
process that ran submitted code or compiled attacker-made bytes, so it is read strictly
(``parse_child_response``, ``parse_verify_response``): every field of its declared type and
nothing else, or ``Malformed``. Arrays travel as ``judge.data.protocol`` encodes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from . import records, verdicts
from .evidence import Aval, Cost, Residual, Structure
from .records import Malformed, Record, choice, parent_only, transient
from .saved_values import SavedValue

FILENAME = "submission.py"  # the name the submission's code has in the child (tracebacks, lines)

# ---------------------------------------------------------------------------- requests


@dataclass
class CaseInput(Record):
    name: str
    seed: int
    static_mask: list[bool]  # per argument: a Python value fixed in place, not an array
    args: list  # the generated arrays and the static values, in the entry point's order
    sample: bool = False  # shown to learners: what the submission prints on it is shown (see child._PrintedOutput)

    def program_key(self) -> tuple:
        """Cases with equal keys (the same arrays' shapes and dtypes, the same static values) share
        one trace in the child, and so one program in the bundle it exports. The same on either
        side of the wire: static values are compared as JSON carries them (a tuple as a list)."""
        arrays = tuple(
            (tuple(np.shape(v)), np.asarray(v).dtype.name) for v, s in zip(self.args, self.static_mask) if not s
        )
        return arrays, tuple(repr(_as_sent(v)) for v, s in zip(self.args, self.static_mask) if s)


def _as_sent(value):
    if isinstance(value, (list, tuple)):
        return [_as_sent(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _as_sent(v) for k, v in value.items()}
    if isinstance(value, (np.ndarray, np.generic)):
        return ("array", value.dtype.name, np.shape(value), np.asarray(value).tobytes())
    return value


def program_indices(cases: list[CaseInput]) -> list[int]:
    """Per case, which program of the exported bundle is its own: the bundle holds one program per
    distinct ``program_key``, in the order of the cases that first have it."""
    first: dict = {}
    return [first.setdefault(case.program_key(), len(first)) for case in cases]


@dataclass
class ChildRequest(Record):
    """What the submission's child traces: the source, its entry point and generated inputs."""

    KIND: ClassVar[str] = "trace"

    source: str
    entry: str
    arg_names: list[str]
    wrt: list[int]  # positions, among the array arguments, of those differentiated
    cases: list[CaseInput]
    filename: str = FILENAME
    fwd_bwd: bool = False  # also print the forward and backward programs
    cost: bool = False  # also measure the gradient step's cost (XLA's estimates: on the first case)
    baseline: bool = False  # also measure the memory the program holds without its checkpoints
    harness: str = ""  # the problem's trusted code that calls the learner's function
    output_kb: int | None = None  # what the submission may print, counted on every case, hidden ones too


@dataclass
class VerifyCase(Record):
    name: str
    inputs: list[np.ndarray]  # the case's arrays, as the child got them
    cotangent: list[np.ndarray]  # one per output leaf
    hidden_inputs: list[np.ndarray]  # same shapes, other values: never seen by the child
    hidden_cotangent: list[np.ndarray]
    # which program of the bundle runs this case (``program_indices``): cases of the same shapes
    # share one, so that it is exported, compiled and costed once
    program: int = 0


@dataclass
class VerifyRequest(Record):
    """What the verifier runs: the two exported programs and, per case, inputs and cotangents."""

    KIND: ClassVar[str] = "verify"

    fwd: np.ndarray  # the serialized forward program's bytes (uint8)
    bwd: np.ndarray
    wrt: list[int]
    cases: list[VerifyCase]
    cost: bool = False  # also measure each case's gradient step (``judge.inspection.program_cost``)
    # and XLA's estimates of the first case's step (a second compilation): for a recorded grading,
    # whose figures the leaderboard shows; no rule reads them
    estimates: bool = False
    # False: the figures only (types, residuals, cost), read from the programs without running
    # them: no values, gradients or saved values (the explorer's many plans of one function)
    numbers: bool = True
    # The executable a verifier compiled from these very programs and types before, kept by the
    # parent (``judge.grading.compiled_programs``): loaded instead of compiled. None: compile.
    compiled: np.ndarray | None = None
    keep: bool = False  # send back what was compiled, for the parent to keep


# What a child is asked, by kind (``judge.in_child.child.HANDLERS`` answers each).
REQUESTS = {ChildRequest.KIND: ChildRequest, VerifyRequest.KIND: VerifyRequest}


# ---------------------------------------------------------------------------- what comes back


@dataclass(frozen=True)
class CaseError(Record):
    kind: str = choice(verdicts.ERROR_KINDS)  # a key of verdicts.ERROR_KINDS
    message: str
    line: int | None = None  # in the submission's source
    skipped: bool = parent_only(default=False)  # not checked because an earlier case failed

    @property
    def verdict(self) -> str:
        return verdicts.ERROR_KINDS[self.kind]

    def text(self) -> str:
        return f"{self.message}{f' (line {self.line})' if self.line else ''}"


@dataclass
class TracedCase(Record):
    """One case: what the child read from its traced program, then the verifier's numbers (which
    the parent adds: never on the child's wire, stored in the expected results' cache)."""

    name: str
    error: CaseError | None = None
    treedef: str = ""  # the output's pytree structure
    outputs: list[Aval] = field(default_factory=list)  # the child's, replaced by the verifier's
    residuals: list[Residual] = field(default_factory=list)  # with provenance, as the child read them
    structure: Structure = field(default_factory=Structure)
    programs: dict[str, str] | None = None  # printed "forward" and "backward" programs, when asked
    cost: Cost | None = None  # when asked
    # From the verifier: the residuals its program really saves, and values and gradients on the
    # case's inputs and on the hidden ones.
    residual_types: list[Aval] = parent_only(default_factory=list)
    value: list[np.ndarray] = parent_only(default_factory=list)
    grads: list[np.ndarray] = parent_only(default_factory=list)
    hidden_value: list[np.ndarray] = parent_only(default_factory=list)
    hidden_grads: list[np.ndarray] = parent_only(default_factory=list)
    saved: list[SavedValue] = parent_only(default_factory=list)  # the residuals' values, as the verifier saw them
    contradicted: bool = transient(default=False)  # the child's report is not of the program the verifier ran

    def _check(self) -> str | None:
        if self.programs is not None and set(self.programs) != {"forward", "backward"}:
            return "programs: the forward and the backward program, printed"
        if any(r.kept_by is not None and not 0 <= r.kept_by < len(self.structure.checkpoints) for r in self.residuals):
            return "residuals: kept by a checkpoint the program does not have"
        if len(self.saved) != len(self.residual_types):
            return "saved: one value per residual the program returns"
        if any(a.bytes is None for a in self.residual_types):
            return "residual types: sized"
        return None


@dataclass
class Programs(Record):
    """The exported forward and backward programs, serialized (``jax.export``), for the verifier."""

    fwd: np.ndarray
    bwd: np.ndarray

    def _check(self) -> str | None:
        if not all(p.dtype == np.uint8 and p.ndim == 1 for p in (self.fwd, self.bwd)):
            return "programs: bytes"
        return None


@dataclass
class Traced(Record):
    """The submission's child's answer: the cases asked for, in order, up to the first that
    failed, and the programs of those that traced."""

    KIND: ClassVar[str] = "traced"

    cases: list[TracedCase]
    programs: Programs | None = None


@dataclass
class Failed(Record):
    """The whole run failed: the source did not load or did not export (or the verifier refused
    the programs, or they failed to run)."""

    KIND: ClassVar[str] = "failed"

    error: CaseError


@dataclass
class SandboxFailed(Record):
    """The child's sandbox could not be set up (believed only before the child said it was in place)."""

    KIND: ClassVar[str] = "sandbox_error"

    detail: str


# What the verifier measures of a step (``judge.inspection.program_cost``): every figure a cost rule
# or a ranking reads.
VERIFIED_COST = ("flops", "peak_bytes", "held_peak_bytes")
# XLA's estimates of the first case's step, beside ours for reference (ranked by nothing).
XLA_ESTIMATES = ("xla_flops", "xla_temp_bytes", "xla_peak_bytes")
_NOT_MEASURED_BY_THE_VERIFIER = ("plain_held_peak_bytes", "revision", "timeline")


@dataclass
class VerifiedCase(Record):
    name: str
    outputs: list[Aval]
    residuals: list[Aval] = field(default_factory=list)
    value: list[np.ndarray] = field(default_factory=list)
    grads: list[np.ndarray] = field(default_factory=list)
    hidden_value: list[np.ndarray] = field(default_factory=list)
    hidden_grads: list[np.ndarray] = field(default_factory=list)
    saved: list[SavedValue] = field(default_factory=list)
    cost: Cost | None = None  # the step's figures, measured on the program the verifier compiled (when asked)

    def _check(self) -> str | None:
        if any(a.bytes is None for a in self.residuals):
            return "residuals: sized"
        if self.saved and len(self.saved) != len(self.residuals):
            return "saved: one value per residual the program returns"
        cost = self.cost
        if cost is not None and not (
            all(getattr(cost, k) is not None and getattr(cost, k) >= 0 for k in VERIFIED_COST)
            and all(getattr(cost, k) is None or getattr(cost, k) >= 0 for k in XLA_ESTIMATES)
            and all(getattr(cost, k) is None for k in _NOT_MEASURED_BY_THE_VERIFIER)
        ):
            return "cost: the verifier's figures"
        return None


@dataclass
class Verified(Record):
    """The verifier ran the programs on every case."""

    KIND: ClassVar[str] = "verified"

    cases: list[VerifiedCase]
    compiled: np.ndarray | None = None  # XLA's executable (uint8), where the request asked to keep it


@dataclass
class Mismatched(Record):
    """The forward program's outputs are not of the types expected: nothing was run (only the
    cases' names and outputs are given)."""

    KIND: ClassVar[str] = "mismatched"

    cases: list[VerifiedCase]


CHILD_ANSWERS = {Traced.KIND: Traced, Failed.KIND: Failed}
VERIFIER_ANSWERS = {Verified.KIND: Verified, Mismatched.KIND: Mismatched, Failed.KIND: Failed}


# ---------------------------------------------------------------------------- as the pipeline reads them


@dataclass
class ChildResponse:
    error: CaseError | None  # the whole run failed: the source did not load, or did not export
    cases: list[TracedCase]  # the cases asked for, in order, up to the first that failed
    programs: tuple[np.ndarray, np.ndarray] | None  # the exported forward and backward programs


@dataclass
class VerifyResponse:
    error: CaseError | None  # the programs were refused, or failed to run
    checked: bool  # False: the outputs' types differ from those expected, nothing was run
    cases: list[VerifiedCase]
    compiled: np.ndarray | None = None  # the executable the verifier compiled, to keep (bytes, unread)


def parse_child_response(message, requested: list[str]) -> ChildResponse:
    """The submission's child's answer to a request for the cases named ``requested``."""
    answer = records.read_message(message, CHILD_ANSWERS)
    if isinstance(answer, Failed):
        return ChildResponse(answer.error, [], None)
    cases = answer.cases
    if not (
        [c.name for c in cases] == requested[: len(cases)]
        and (len(cases) == len(requested) or bool(cases) and cases[-1].error is not None)
    ):
        raise Malformed("cases: those asked for, in order, all of them or up to the first that failed")
    programs = None
    if any(c.error is None for c in cases):
        if answer.programs is None:
            raise Malformed("programs: missing, though cases traced")
        programs = (answer.programs.fwd, answer.programs.bwd)
    return ChildResponse(None, cases, programs)


def parse_verify_response(message, names: list[str], numbers: bool = True) -> VerifyResponse:
    """The verifier's answer for the cases named ``names`` (``numbers``: as the request asked: the
    values, gradients and saved values of every case that ran, or none of them)."""
    answer = records.read_message(message, VERIFIER_ANSWERS)
    if isinstance(answer, Failed):
        return VerifyResponse(answer.error, False, [])
    if [c.name for c in answer.cases] != names:
        raise Malformed("cases: those asked for, in order")
    ran = isinstance(answer, Verified)
    for case in answer.cases:
        if ran and numbers and len(case.saved) != len(case.residuals):
            raise Malformed("saved: one value per residual the program returns")
        if (not ran or not numbers) and (
            case.value or case.grads or case.hidden_value or case.hidden_grads or case.saved
        ):
            raise Malformed("values: none where nothing was run")
    compiled = answer.compiled if ran else None
    if compiled is not None and (compiled.dtype != np.uint8 or compiled.ndim != 1):
        raise Malformed("compiled: bytes")
    return VerifyResponse(None, ran, answer.cases, compiled)
