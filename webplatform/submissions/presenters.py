"""Turns a stored ``judge.Report`` dict into what the verdict templates show."""
from __future__ import annotations

from dataclasses import dataclass, field

from judge.evidence import Residual
from judge.report import Report
from judge.verdicts import DESCRIPTIONS

from . import memory_picture
from .models import Submission


@dataclass
class Folded:
    """One value of a row's expression beside the one the row names (a derivative rule's own)."""
    what: str
    type: str
    bytes: int


@dataclass
class ResidualRow:
    type: str
    bytes: int
    saved_value: str
    line: int | None
    offending: bool = False
    missing: bool = False  # saved by the required policy, not by the submission
    reason: str = ""
    memory: str = "device"  # where it is kept: "device", or "pinned_host" when offloaded
    # The other values the same expression of the learner's code made (relu's derivative rule
    # keeps a mask and a broadcast beside relu's output): shown on demand, never on their own row.
    folded: list[Folded] = field(default_factory=list)

    @property
    def offloaded(self) -> bool:
        return self.memory != "device"


@dataclass
class Result:
    verdict: str
    description: str
    message: str
    cases: list = field(default_factory=list)
    yours: list[ResidualRow] = field(default_factory=list)
    required: list[ResidualRow] = field(default_factory=list)
    your_bytes: int = 0  # on the device (what rankings count)
    required_bytes: int = 0
    your_host_bytes: int = 0  # offloaded to host memory, counted apart
    required_host_bytes: int = 0
    checkpoints: list = field(default_factory=list)
    forward: str = ""
    backward: str = ""
    stdout: str = ""
    time_s: float | None = None
    notes: list = field(default_factory=list)
    cause: str = ""  # a policy_violation's structural cause, one sentence (empty in older reports)
    advice: str = ""  # one thing to try
    # The judge's cost figures of a recorded submission (flops, peak_bytes, xla_flops,
    # xla_peak_bytes); empty for "Run samples", which is not measured.
    cost: dict = field(default_factory=dict)
    # The memory pictures of one gradient step (``memory_picture``): the learner's, and the
    # reference's curve beside it on the same scale; empty where the step was not measured.
    memory: str = ""
    reference_memory: str = ""
    memory_text: str = ""
    operations: tuple = ((), ())  # the forward and backward operations, recomputed ones marked
    inspection: bool = False  # an "Inspect": what the code saves, no verdict

    @property
    def has_residuals(self) -> bool:
        return bool(self.yours or self.required)

    @property
    def offloads(self) -> bool:
        return bool(self.your_host_bytes or self.required_host_bytes)

    @property
    def bytes_over(self) -> int:
        """Bytes the submission saves beyond what the policy keeps (negative: fewer)."""
        return self.your_bytes - self.required_bytes


def residual_row(residual: Residual, offending: bool = False, reason: str = "", missing: bool = False) -> ResidualRow:
    return ResidualRow(type=residual.type, bytes=residual.bytes, saved_value=residual.origin(), line=residual.line,
                       offending=offending, reason=reason, missing=missing, memory=residual.memory)


def residual_rows(residuals: list[Residual], marked: bool = True, missing: bool = False) -> list[ResidualRow]:
    """One row per expression of the learner's code: the values one expression made (read from
    its source by the judge: ``Residual.expr``) are one row, named by the largest, its bytes
    the sum, the others folded under it. Older reports (no ``expr``) keep one row per value."""
    groups: dict = {}
    for r in residuals:
        offending = (getattr(r, "offending", False) or missing) if marked else False
        reason = getattr(r, "reason", "") if marked else ""
        key = (r.expression(), offending, reason) if r.expression() else id(r)
        groups.setdefault(key, []).append((r, offending, reason))
    rows = []
    for members in groups.values():
        ordered = sorted(members, key=lambda m: (-m[0].bytes, m[0].what != m[0].op))
        first, offending, reason = ordered[0]
        row = residual_row(first, offending, reason, missing)
        row.bytes = sum(m[0].bytes for m in members)
        row.folded = [Folded(m[0].what, m[0].type, m[0].bytes) for m in ordered[1:]]
        rows.append(row)
    return rows


def present(submission: Submission) -> Result | None:
    """None while the submission is not graded yet."""
    if not submission.is_done:
        return None
    report = Report.from_dict(submission.report or {})
    result = Result(
        verdict=submission.verdict,
        description=DESCRIPTIONS.get(submission.verdict, ""),
        message=submission.message,
        cases=report.cases,
        yours=residual_rows(report.residuals) + residual_rows(report.missing_residuals, missing=True),
        required=residual_rows(report.reference_residuals, marked=False),
        your_bytes=report.residual_bytes,
        required_bytes=report.reference_residual_bytes,
        your_host_bytes=report.host_residual_bytes,
        required_host_bytes=report.reference_host_residual_bytes,
        checkpoints=report.structure.checkpoints if report.structure is not None else [],
        forward=report.programs.get("forward", ""),
        backward=report.programs.get("backward", ""),
        stdout=report.stdout,
        time_s=report.time_s,
        notes=report.notes,
        cause=report.cause,
        advice=report.advice,
        cost=report.cost.to_dict() if report.cost is not None else {},
        inspection=submission.kind == Submission.Kind.INSPECT,
    )
    return _with_memory(result, report)


def _with_memory(result: Result, report: Report) -> Result:
    timeline = report.cost.timeline if report.cost is not None else None
    if timeline is None:
        return result
    reference = report.reference_timeline
    scale = max(timeline.peak_bytes, reference.peak_bytes if reference is not None else 0)
    result.memory = memory_picture.draw(timeline, report.residuals, title="Your gradient step's memory",
                                        scale_bytes=scale, ident="memory-yours")
    result.memory_text = memory_picture.describe(timeline, report.residuals)
    result.operations = memory_picture.operations(timeline)
    if reference is not None:
        result.reference_memory = memory_picture.draw(reference, None, title="The reference's memory, as a curve",
                                                      scale_bytes=scale, ident="memory-reference")
    return result
