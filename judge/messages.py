"""The messages between the grader and the children it starts, typed: one builder, one parser each.

Requests are built by the parent and read by the child with the same class (``ChildRequest``,
``VerifyRequest``: ``to_wire`` and ``from_wire``). What comes back was written by a process that
ran submitted code or compiled attacker-made bytes, so it is parsed here before anything reads
it (``parse_child_response``, ``parse_verify_response``): a value of the declared type, or
``Malformed``. Arrays travel as ``judge.protocol`` encodes them; the keys on the wire are the
names of the fields below.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import policy_names, saved_values, verdicts
from .evidence import (
    DEVICE,
    MEMORY_KINDS,
    POLICY_ORIGINS,
    Aval,
    Checkpoint,
    Cost,
    CustomDerivative,
    OnPath,
    Residual,
    Span,
    Step,
    Structure,
    Timeline,
)
from .saved_values import SavedValue

FILENAME = "submission.py"  # the name the submission's code has in the child (tracebacks, lines)
VERIFY = "verify"  # a request's "mode": the verifier's; a submission's child's has none


class Malformed(ValueError):
    """What a child sent back is not the message it should be."""


# ---------------------------------------------------------------------------- requests


@dataclass
class CaseInput:
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
class ChildRequest:
    """What the submission's child traces: the source, its entry point and generated inputs."""

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

    def to_wire(self) -> dict:
        return {
            "source": self.source,
            "filename": self.filename,
            "entry": self.entry,
            "arg_names": self.arg_names,
            "wrt": self.wrt,
            "fwd_bwd": self.fwd_bwd,
            "cost": self.cost,
            "baseline": self.baseline,
            "harness": self.harness,
            "output_kb": self.output_kb,
            "cases": [vars(case) for case in self.cases],
        }

    @classmethod
    def from_wire(cls, message: dict) -> ChildRequest:
        fields = {name: message[name] for name in cls.__dataclass_fields__ if name != "cases"}
        return cls(**fields, cases=[CaseInput(**case) for case in message["cases"]])


@dataclass
class VerifyCase:
    name: str
    inputs: list[np.ndarray]  # the case's arrays, as the child got them
    cotangent: list[np.ndarray]  # one per output leaf
    hidden_inputs: list[np.ndarray]  # same shapes, other values: never seen by the child
    hidden_cotangent: list[np.ndarray]
    # which program of the bundle runs this case (``program_indices``): cases of the same shapes
    # share one, so that it is exported, compiled and costed once
    program: int = 0


@dataclass
class VerifyRequest:
    """What the verifier runs: the two exported programs and, per case, inputs and cotangents."""

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

    def to_wire(self) -> dict:
        return {
            "mode": VERIFY,
            "fwd": self.fwd,
            "bwd": self.bwd,
            "wrt": list(self.wrt),
            "cost": self.cost,
            "estimates": self.estimates,
            "numbers": self.numbers,
            "cases": [vars(case) for case in self.cases],
        }

    @classmethod
    def from_wire(cls, message: dict) -> VerifyRequest:
        return cls(
            message["fwd"],
            message["bwd"],
            message["wrt"],
            [VerifyCase(**case) for case in message["cases"]],
            bool(message.get("cost")),
            bool(message.get("estimates")),
            bool(message.get("numbers", True)),
        )


# ---------------------------------------------------------------------------- what comes back


@dataclass(frozen=True)
class CaseError:
    kind: str  # a key of verdicts.ERROR_KINDS
    message: str
    line: int | None = None  # in the submission's source
    skipped: bool = False  # set by the parent only: not checked because an earlier case failed

    @property
    def verdict(self) -> str:
        return verdicts.ERROR_KINDS[self.kind]

    def text(self) -> str:
        return f"{self.message}{f' (line {self.line})' if self.line else ''}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "line": self.line} | (
            {"skipped": True} if self.skipped else {}
        )


@dataclass
class TracedCase:
    """One case: what the child read from its traced program, then the verifier's numbers."""

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
    residual_types: list[Aval] = field(default_factory=list)
    value: list[np.ndarray] = field(default_factory=list)
    grads: list[np.ndarray] = field(default_factory=list)
    hidden_value: list[np.ndarray] = field(default_factory=list)
    hidden_grads: list[np.ndarray] = field(default_factory=list)
    saved: list[SavedValue] = field(default_factory=list)  # the residuals' values, as the verifier saw them
    contradicted: bool = False  # the child's report is not of the program the verifier ran (never stored)

    def to_wire(self) -> dict:
        """As the expected results' cache stores it (``judge.expected``)."""
        if self.error is not None:
            return {"name": self.name, "error": self.error.to_dict()}
        found = {
            "name": self.name,
            "treedef": self.treedef,
            "outputs": [a.to_dict() for a in self.outputs],
            "residuals": [r.to_dict() for r in self.residuals],
            "structure": self.structure.to_dict(),
        }
        if self.programs is not None:
            found["programs"] = self.programs
        if self.cost is not None:
            found["cost"] = self.cost.to_dict()
        return found | {
            "residual_types": [a.to_dict() for a in self.residual_types],
            "value": self.value,
            "grads": self.grads,
            "hidden_value": self.hidden_value,
            "hidden_grads": self.hidden_grads,
            "saved": [v.to_wire() for v in self.saved],
        }

    @classmethod
    def from_wire(cls, data: dict) -> TracedCase:
        """A stored case (``to_wire``), checked as what a child sends, plus the verifier's part."""
        case = _traced_case(data)
        if case.error is None:
            _expect(isinstance(data.get("residual_types"), list), "residual types")
            case.residual_types = [_aval(a, sized=True) for a in data["residual_types"]]
            for key in ("value", "grads", "hidden_value", "hidden_grads"):
                setattr(case, key, _arrays(data.get(key)))
            case.saved = _saved(data.get("saved"), len(case.residual_types))
        return case


@dataclass
class ChildResponse:
    error: CaseError | None  # the whole run failed: the source did not load, or did not export
    cases: list[TracedCase]  # the cases asked for, in order, up to the first that failed
    programs: tuple[np.ndarray, np.ndarray] | None  # the exported forward and backward programs


@dataclass
class VerifiedCase:
    name: str
    outputs: list[Aval]
    residuals: list[Aval] = field(default_factory=list)
    value: list[np.ndarray] = field(default_factory=list)
    grads: list[np.ndarray] = field(default_factory=list)
    hidden_value: list[np.ndarray] = field(default_factory=list)
    hidden_grads: list[np.ndarray] = field(default_factory=list)
    saved: list[SavedValue] = field(default_factory=list)
    cost: Cost | None = None  # the step's figures, measured on the program the verifier compiled (when asked)


@dataclass
class VerifyResponse:
    error: CaseError | None  # the programs were refused, or failed to run
    checked: bool  # False: the outputs' types differ from those expected, nothing was run
    cases: list[VerifiedCase]


def parse_child_response(message: dict, requested: list[str]) -> ChildResponse:
    """The submission's child's answer to a request for the cases named ``requested``."""
    if message.get("status") == "error":
        return ChildResponse(_error(message.get("error")), [], None)
    _expect(message.get("status") == "ok" and isinstance(message.get("cases"), list), "status and cases")
    cases = [_traced_case(c) for c in message["cases"]]
    _expect(
        [c.name for c in cases] == requested[: len(cases)]
        and (len(cases) == len(requested) or bool(cases) and cases[-1].error is not None),
        "cases: those asked for, in order, all of them or up to the first that failed",
    )
    programs = None
    if any(c.error is None for c in cases):
        found = message.get("programs")
        _expect(isinstance(found, dict) and all(_is_program(found.get(k)) for k in ("fwd", "bwd")), "programs")
        programs = (found["fwd"], found["bwd"])
    return ChildResponse(None, cases, programs)


def parse_verify_response(message: dict, names: list[str], numbers: bool = True) -> VerifyResponse:
    """The verifier's answer for the cases named ``names`` (``numbers``: as the request asked)."""
    if message.get("status") == "error":
        return VerifyResponse(_error(message.get("error")), False, [])
    checked = message.get("checked")
    _expect(
        message.get("status") == "ok"
        and isinstance(checked, bool)
        and isinstance(message.get("cases"), list)
        and all(isinstance(c, dict) for c in message["cases"])
        and [c.get("name") for c in message["cases"]] == names,
        "status, checked and cases",
    )
    cases = []
    for case in message["cases"]:
        found = VerifiedCase(case["name"], _avals(case.get("outputs"), sized=False))
        if checked:
            found.residuals = _avals(case.get("residuals"), sized=True)
            if numbers:
                for key in ("value", "grads", "hidden_value", "hidden_grads"):
                    setattr(found, key, _arrays(case.get(key)))
                found.saved = _saved(case.get("saved"), len(found.residuals))
            if "cost" in case:
                found.cost = _verified_cost(case["cost"])
        cases.append(found)
    return VerifyResponse(None, checked, cases)


# ---------------------------------------------------------------------------- parsing, piece by piece


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise Malformed(f"malformed {what}")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_int_or_none(value) -> bool:
    return value is None or _is_int(value)


def _is_number(value) -> bool:
    return isinstance(value, float) or _is_int(value)


def _is_program(value) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 1


def _arrays(items) -> list[np.ndarray]:
    _expect(isinstance(items, list) and all(isinstance(a, np.ndarray) for a in items), "arrays")
    return items


def _saved(items, count: int) -> list[SavedValue]:
    """One fingerprint per residual the program returns."""
    _expect(isinstance(items, list) and len(items) == count, "saved values")
    try:
        return [saved_values.from_wire(v) for v in items]
    except ValueError:
        raise Malformed("malformed saved values") from None


def _shape(value) -> list[int]:
    _expect(isinstance(value, list) and all(_is_int(d) for d in value), "shape")
    return value


def _aval(data, sized: bool) -> Aval:
    _expect(isinstance(data, dict) and isinstance(data.get("dtype"), str), "array type")
    _expect(not sized or _is_int(data.get("bytes")), "array size")
    _expect(data.get("memory", DEVICE) in MEMORY_KINDS, "memory kind")
    return Aval(data["dtype"], _shape(data.get("shape")), data["bytes"] if sized else None, data.get("memory", DEVICE))


def _avals(items, sized: bool) -> list[Aval]:
    _expect(isinstance(items, list), "array types")
    return [_aval(a, sized) for a in items]


def _error(data) -> CaseError:
    """Only the child's own words: ``skipped`` is the parent's mark, whoever else sends it."""
    _expect(
        isinstance(data, dict)
        and data.get("kind") in verdicts.ERROR_KINDS
        and isinstance(data.get("message"), str)
        and _is_int_or_none(data.get("line")),
        "error",
    )
    return CaseError(data["kind"], data["message"], data.get("line"))


def _residual(data) -> Residual:
    _expect(
        isinstance(data, dict)
        and all(isinstance(data.get(k), str) for k in ("kind", "what", "dtype", "type"))
        and _is_int(data.get("bytes"))
        and _is_int_or_none(data.get("line"))
        and isinstance(data.get("policy_saved", False), bool)
        and _is_int_or_none(data.get("stacked"))
        and _is_int_or_none(data.get("kept_by"))
        and data.get("memory", DEVICE) in MEMORY_KINDS
        and _is_span(data.get("span")),
        "residual",
    )
    return Residual(
        kind=data["kind"],
        what=data["what"],
        line=data.get("line"),
        dtype=data["dtype"],
        shape=_shape(data.get("shape")),
        type=data["type"],
        bytes=data["bytes"],
        policy_saved=data.get("policy_saved", False),
        stacked=data.get("stacked"),
        kept_by=data.get("kept_by"),
        memory=data.get("memory", DEVICE),
        span=data.get("span"),
    )


def _is_span(value) -> bool:
    """Where in the source: None, or [line, column, end line, end column] (the learner's terms
    are the parent's reading of its own copy of the source: a child cannot word them)."""
    return value is None or (isinstance(value, list) and len(value) == 4 and all(_is_int(v) and v >= 0 for v in value))


def _checkpoint(data) -> Checkpoint:
    _expect(
        isinstance(data, dict)
        and isinstance(data.get("policy"), list)
        and isinstance(data.get("policy_text"), str)
        and isinstance(data.get("prevent_cse"), bool)
        and _is_int_or_none(data.get("line"))
        and _is_int_or_none(data.get("parent"))
        and _is_int(data.get("depth"))
        and all(isinstance(data.get(k), (bool, type(None))) for k in ("on_path", "in_loop"))
        and data.get("policy_origin") in POLICY_ORIGINS
        and _is_int_or_none(data.get("policy_line"))
        and isinstance(data.get("encloses"), dict)
        and all(isinstance(k, str) and _is_int(n) for k, n in data["encloses"].items()),
        "checkpoint",
    )
    try:
        policy_names.from_wire(data["policy"])
    except (TypeError, IndexError, ValueError):
        raise Malformed("malformed checkpoint policy") from None
    return Checkpoint(
        policy=data["policy"],
        policy_text=data["policy_text"],
        prevent_cse=data["prevent_cse"],
        line=data.get("line"),
        parent=data.get("parent"),
        depth=data["depth"],
        in_loop=data.get("in_loop"),
        encloses=data["encloses"],
        on_path=data.get("on_path"),
        policy_origin=data["policy_origin"],
        policy_line=data.get("policy_line"),
    )


def _structure(data) -> Structure:
    _expect(
        isinstance(data, dict)
        and isinstance(data.get("checkpoints"), list)
        and isinstance(data.get("custom_derivatives"), list)
        and all(
            isinstance(c, dict) and isinstance(c.get("kind"), str) and _is_int_or_none(c.get("line"))
            for c in data["custom_derivatives"]
        )
        and isinstance(data.get("primitives"), dict)
        and all(isinstance(k, str) and _is_int(n) for k, n in data["primitives"].items())
        and isinstance(data.get("on_path"), list),
        "structure",
    )
    checkpoints = [_checkpoint(c) for c in data["checkpoints"]]
    on_path = []
    for entry in data["on_path"]:
        _expect(
            isinstance(entry, list)
            and len(entry) == 4
            and isinstance(entry[0], str)
            and _is_int_or_none(entry[1])
            and isinstance(entry[2], list)
            and all(_is_int(i) and 0 <= i < len(checkpoints) for i in entry[2])
            and _is_int(entry[3]),
            "operations on the differentiated path",
        )
        on_path.append(OnPath(entry[0], entry[1], tuple(entry[2]), entry[3]))
    custom = [CustomDerivative(c["kind"], c.get("line")) for c in data["custom_derivatives"]]
    return Structure(checkpoints, custom, data["primitives"], on_path)


def _cost(data) -> Cost:
    """What a child says of a step's cost: wording only (the memory picture's timeline, and the
    reference's memory without its checkpoints); the figures rules read are the verifier's."""
    _expect(
        isinstance(data, dict)
        and all(k in Cost.__dataclass_fields__ and _is_number(v) for k, v in data.items() if k != "timeline"),
        "cost",
    )
    figures = {k: v for k, v in data.items() if k != "timeline"}
    return Cost(**figures, timeline=_timeline(data["timeline"]) if "timeline" in data else None)


# What the verifier measures of a step (``judge.inspection.program_cost``): every figure a cost rule
# or a ranking reads.
VERIFIED_COST = ("flops", "peak_bytes", "held_peak_bytes")
# XLA's estimates of the first case's step, beside ours for reference (ranked by nothing).
XLA_ESTIMATES = ("xla_flops", "xla_temp_bytes", "xla_peak_bytes")


def _verified_cost(data) -> Cost:
    _expect(
        isinstance(data, dict)
        and set(data) <= set(VERIFIED_COST) | set(XLA_ESTIMATES) | {"held_host_bytes"}
        and all(_is_number(data.get(k)) and data[k] >= 0 for k in VERIFIED_COST)
        and all(_is_number(data[k]) and data[k] >= 0 for k in XLA_ESTIMATES if k in data)
        and _is_int_or_none(data.get("held_host_bytes")),
        "verified cost",
    )
    return Cost(**data)


def _timeline(data) -> Timeline:
    _expect(
        isinstance(data, dict)
        and isinstance(data.get("steps"), list)
        and isinstance(data.get("residuals"), list)
        and _is_int(data.get("backward_from"))
        and _is_int(data.get("start_bytes")),
        "timeline",
    )
    steps = []
    for s in data["steps"]:
        _expect(
            isinstance(s, list)
            and len(s) == 5
            and isinstance(s[0], str)
            and _is_int_or_none(s[1])
            and _is_int(s[2])
            and isinstance(s[3], bool)
            and isinstance(s[4], bool),
            "timeline step",
        )
        steps.append(Step(*s))
    spans = []
    for r in data["residuals"]:
        _expect(
            isinstance(r, list)
            and len(r) == 5
            and all(_is_int(x) for x in r[:3])
            and all(_is_int_or_none(x) for x in r[3:])
            and all(x is None or -1 <= x < len(steps) for x in r[2:]),
            "timeline residual",
        )
        spans.append(Span(*r))
    return Timeline(steps, spans, data["backward_from"], data["start_bytes"])


def _traced_case(data) -> TracedCase:
    _expect(isinstance(data, dict) and isinstance(data.get("name"), str), "case")
    if "error" in data:
        return TracedCase(data["name"], error=_error(data["error"]))
    _expect(isinstance(data.get("treedef"), str), "output structure")
    programs = data.get("programs")
    _expect(
        programs is None
        or (
            isinstance(programs, dict)
            and set(programs) == {"forward", "backward"}
            and all(isinstance(p, str) for p in programs.values())
        ),
        "printed programs",
    )
    structure = _structure(data.get("structure"))
    residuals = [_residual(r) for r in _list(data.get("residuals"))]
    _expect(
        all(r.kept_by is None or 0 <= r.kept_by < len(structure.checkpoints) for r in residuals),
        "residuals: kept by a checkpoint of the program",
    )
    return TracedCase(
        name=data["name"],
        treedef=data["treedef"],
        outputs=_avals(data.get("outputs"), sized=False),
        residuals=residuals,
        structure=structure,
        programs=programs,
        cost=_cost(data["cost"]) if "cost" in data else None,
    )


def _list(value) -> list:
    _expect(isinstance(value, list), "list")
    return value
