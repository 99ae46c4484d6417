"""The site's answers as typed classes: a submission and its graded report, and an exploration of
policies, field for field as the API's OpenAPI schema declares them (the names are the judge's, from the judge to this client).
``tests/web/test_api_client_types.py`` fails when these and the schema the site serves drift apart.

``read(Submission, data)`` builds one from the JSON; a field the site did not send (an older site)
reads as its default here, and a field this client does not know is left out.
"""

from __future__ import annotations

import dataclasses
import typing
import warnings
from dataclasses import dataclass, field
from typing import ClassVar

DEVICE = "device"


class Answer:
    """What every class here shares: ``row["bytes"]``, as the dicts of earlier clients were read,
    still works for a while, with a warning."""

    def __getitem__(self, name: str):
        warnings.warn(
            f"reading {type(self).__name__} as a dict is deprecated: use .{name}", DeprecationWarning, stacklevel=2
        )
        return getattr(self, name)


@dataclass
class Case(Answer):
    name: str
    sample: bool
    verdict: str
    max_error: float | None
    message: str
    skipped: bool = False  # not run or not checked because an earlier case failed


@dataclass
class ResidualRow(Answer):
    """A value the submission saves for the backward pass, or one the required policy saves that
    it does not (``missing``)."""

    type: str  # dtype and shape, such as f32[8,16]
    bytes: int
    saved_value: str
    line: int | None
    offending: bool = False
    missing: bool = False
    reason: str = ""
    memory: str = DEVICE  # or pinned_host: offloaded to host memory


@dataclass
class ReferenceResidual(Answer):
    """A value the required policy saves."""

    type: str
    bytes: int
    saved_value: str
    memory: str = DEVICE


@dataclass
class Checkpoint(Answer):
    line: int | None
    policy_text: str
    depth: int


@dataclass
class Memory(Answer):
    residual_bytes: int = 0  # on the device: what rankings count
    reference_residual_bytes: int = 0
    host_residual_bytes: int = 0  # offloaded to host memory
    reference_host_residual_bytes: int = 0
    bytes_over: int = 0
    flops: int | None = None  # the judge's figures of one gradient step (None: not measured)
    peak_bytes: int | None = None
    xla_flops: int | None = None
    xla_peak_bytes: int | None = None
    recomputed_operations: int | None = None
    description: str = ""
    picture_svg: str | None = None


@dataclass
class Programs(Answer):
    forward: str
    backward: str


@dataclass
class Report(Answer):
    """A graded submission's report (the schema's ``Result``)."""

    SCHEMA: ClassVar[str] = "Result"

    verdict: str | None  # None: an inspection that ran
    message: str
    description: str = ""
    cause: str = ""
    advice: str = ""
    cases: list[Case] = field(default_factory=list)
    residuals: list[ResidualRow] = field(default_factory=list)
    reference_residuals: list[ReferenceResidual] = field(default_factory=list)
    memory: Memory = field(default_factory=Memory)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    programs: Programs | None = None
    stdout: str = ""
    time_s: float | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class Submission(Answer):
    id: int
    problem: str
    problem_title: str
    version: int
    kind: str  # run, inspect or submit
    status: str  # queued, running or done
    done: bool
    verdict: str | None
    message: str
    created_at: str
    finished_at: str | None
    url: str
    source: str = ""
    result: Report | None = None


@dataclass
class Plan(Answer):
    """One checkpoint policy of an exploration, measured."""

    plan: str
    code: str  # the code that applies it
    held_bytes: int  # kept on the device between the passes
    host_bytes: int  # kept in host memory
    residuals: int
    peak_bytes: int
    held_peak_bytes: int
    flops: float
    recomputed_flops: float
    dominated: bool  # beaten by another plan on every figure
    compiled_peak_bytes: int | None = None  # XLA's peak of the step compiled alone; None: not compiled
    compiled_flops: float | None = None  # XLA's FLOPs of the same step (a loop's body once)


@dataclass
class PolicyExploration(Answer):
    """The policy explorer's answer (the schema's ``Exploration``)."""

    SCHEMA: ClassVar[str] = "Exploration"

    id: int
    status: str
    done: bool
    function: str
    args: list[str]
    budget: int | None
    budget_on: str  # held or peak
    error: str | None
    url: str
    names: list[str] = field(default_factory=list)
    library: str = "function"  # or a module's library, "equinox" or "nnx", whose call was explored
    parameters: list[str] = field(default_factory=list)  # a module's parameters, as "path type"
    notes: list[str] = field(default_factory=list)  # what the explorer did otherwise than asked, and why
    rows: list[Plan] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)  # {"plan": ..., "message": ...}
    best: Plan | None = None


CLASSES = (
    Case,
    ResidualRow,
    ReferenceResidual,
    Checkpoint,
    Memory,
    Programs,
    Report,
    Submission,
    Plan,
    PolicyExploration,
)


def read(cls: type, data: dict):
    """``cls`` built from the site's JSON object ``data``, nested classes included."""
    if not isinstance(data, dict):
        raise ValueError(f"the site sent {type(data).__name__} where {cls.__name__} was expected")
    hints = typing.get_type_hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            values[f.name] = _value(hints[f.name], data[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ValueError(f"the site's {cls.__name__} has no {f.name!r}")
    return cls(**values)


def _value(tp, value):
    if value is None:
        return None
    options = [t for t in typing.get_args(tp) if t is not type(None)] if _optional(tp) else [tp]
    (tp,) = options
    if dataclasses.is_dataclass(tp):
        return read(tp, value)
    if typing.get_origin(tp) is list:
        (item,) = typing.get_args(tp)
        return [_value(item, v) for v in value]
    return value


def _optional(tp) -> bool:
    return type(None) in typing.get_args(tp)
