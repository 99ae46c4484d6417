"""Turns a stored ``judge.Report`` dict into what the verdict templates show."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from judge.data.evidence import Residual, Timeline
from judge.data.report import Report
from judge.data.verdicts import DESCRIPTIONS

from . import memory_picture
from .models import Submission


@dataclass
class Folded:
    """One value of a row's expression beside the one the row names (a derivative rule's own)."""

    what: str
    type: str
    bytes: int


@dataclass
class ResidualView:
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
class Lead:
    """The message as the page opens with it: the cause (one sentence), what to try, then the rest.
    A learner reads the first lines; a 600-character block of types and bytes hid the cause."""

    cause: str = ""
    advice: str = ""
    rest: str = ""
    case: str = ""  # the case the message was written about ("sample-1"), when it names one


@dataclass
class CaseView:
    """A row of the Cases table: its own message only where it says something the lead does not
    (the same message on every case, repeated per row, pushed the cause below the fold)."""

    name: str
    sample: bool
    verdict: str
    max_error: float | None
    note: str = ""  # short, shown: "same cause as above", or a short message of its own
    summary: str = ""  # a long message of its own: what its folded <details> says when closed
    message: str = ""  # what is folded: the case's own message, or what it adds to the same cause

    @property
    def says_more(self) -> bool:
        return bool(self.note or self.message)


@dataclass
class Result:
    verdict: str
    description: str
    message: str
    cases: list = field(default_factory=list)
    # Under the judge's names (``judge.data.report.Report``), as the API sends them: the submission's
    # residuals (and those the required policy saves that it does not), and the required policy's.
    residuals: list[ResidualView] = field(default_factory=list)
    reference_residuals: list[ResidualView] = field(default_factory=list)
    residual_bytes: int = 0  # on the device (what rankings count)
    reference_residual_bytes: int = 0
    host_residual_bytes: int = 0  # offloaded to host memory, counted apart
    reference_host_residual_bytes: int = 0
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
    # One peak per program, everywhere (the verdict, Inspect, the leaderboard, the API): the
    # verifier's ``Cost.peak_bytes``, which budgets read; the reference's on the same case; this
    # problem's limit on it (None: none). The pictures are drawn to these figures.
    peak_bytes: int | None = None
    reference_peak_bytes: int | None = None
    peak_limit_bytes: int | None = None
    # The learner's step recomputes on its backward pass, or only the reference's does: the picture
    # then says why that can raise the peak on a small example (a learner saw the right answer peak
    # higher than no checkpoint, unexplained), without telling a step that recomputes nothing that it does.
    recomputes: bool = False
    reference_recomputes: bool = False
    inspection: bool = False  # an "Inspect": what the code saves, no verdict
    lead: Lead = field(default_factory=Lead)
    case_rows: list[CaseView] = field(default_factory=list)

    @property
    def has_residuals(self) -> bool:
        return bool(self.residuals or self.reference_residuals)

    @property
    def required_marked(self) -> bool:
        """A row of the policy's table is marked (a label on another value): only then has it the
        columns that say so, so that the narrower table keeps its room beside the learner's."""
        return any(row.offending for row in self.reference_residuals)

    @property
    def peak_against_limit(self) -> int | None:
        """Bytes the peak is over this problem's limit (negative: under it); None without a limit."""
        if self.peak_limit_bytes is None or self.peak_bytes is None:
            return None
        return self.peak_bytes - self.peak_limit_bytes

    @property
    def peak_under_limit(self) -> int:
        return -(self.peak_against_limit or 0)

    @property
    def offloads(self) -> bool:
        return bool(self.host_residual_bytes or self.reference_host_residual_bytes)

    @property
    def bytes_over(self) -> int:
        """Bytes the submission saves beyond what the policy keeps (negative: fewer)."""
        return (self.residual_bytes or 0) - self.reference_residual_bytes


def residual_row(residual: Residual, offending: bool = False, reason: str = "", missing: bool = False) -> ResidualView:
    return ResidualView(
        type=residual.type,
        bytes=residual.bytes,
        saved_value=residual.origin(),
        line=residual.line,
        offending=offending,
        reason=reason,
        missing=missing,
        memory=residual.memory,
    )


def residual_rows(residuals: list[Residual], marked: bool = True, missing: bool = False) -> list[ResidualView]:
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


# "case sample-1: ..." (judge/grading/grader.py) and "on the sample case sample-1: ..." (judge/grading/inspecting.py)
CASE_PREFIX = re.compile(r"^(?:case|on the sample case) ([\w.-]+): ")
# A sentence ends at ". " before a capital or a backtick; "jax.checkpoint" and "32.84" do not end one.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")
# Longer per-case messages are folded (<details>) so that a row of the Cases table stays one line.
FOLD_OVER = 80


def _sentence_case(text: str) -> str:
    """For comparing only: the page shows the judge's words as written."""
    return text[:1].upper() + text[1:]


def _after(text: str, prefix: str) -> str | None:
    """``text`` without ``prefix`` (its final full stop optional), or None when it does not start so."""
    for candidate in (prefix, prefix.rstrip(".")):
        if candidate and text.startswith(candidate):
            return text[len(candidate) :].lstrip(" .;:")
    return None


def lead(message: str, cause: str = "", advice: str = "") -> Lead:
    """Splits the stored message into cause, advice and the rest, in that order. The judge's cause
    and advice are used where the report has them (a policy_violation); otherwise the message's first
    sentence is the cause and a "Try: ..." sentence in it is the advice. Nothing of the message is
    dropped: what is neither cause nor advice is the rest."""
    body = message.strip()
    found = CASE_PREFIX.match(body)
    case = found.group(1) if found else ""
    body = body[found.end() :] if found else body
    if cause:
        rest = _after(body, cause)
        rest = _after(_sentence_case(body), cause) if rest is None else rest
        rest = body if rest is None else rest  # worded apart from the message: the message stays whole
    else:
        cause, rest = (SENTENCE_END.split(body, maxsplit=1) + [""])[:2]
    if not advice:
        tried = re.search(r"(?:^|(?<=\s))Try: .*?(?:\.(?=\s|$)|$)", rest)
        advice = tried.group(0) if tried else ""
    if advice and advice in rest:
        rest = rest.replace(advice, "", 1)
    return Lead(cause=cause.strip(), advice=advice.strip(), rest=rest.strip(" ;"), case=case)


def case_rows(cases, message: str, said: Lead) -> list[CaseView]:
    """The Cases table's rows, beside the lead ``said`` (of ``message``): a case whose message is
    the overall one says nothing more; one with the same cause and other details (another case's
    shapes) says so and folds what it adds; one with a message of its own shows it, folded when long."""
    found = CASE_PREFIX.match(message.strip())
    overall = message.strip()[found.end() :] if found else message.strip()
    rows = []
    for case in cases:
        row = CaseView(name=case.name, sample=case.sample, verdict=case.verdict, max_error=case.max_error)
        own = case.message.strip()
        if not own or _sentence_case(own) == _sentence_case(overall):
            pass  # nothing the lead does not say: its verdict is enough
        elif said.cause and _after(_sentence_case(own), _sentence_case(said.cause)) is not None:
            row.note = "same cause as above"
            row.message = lead(own, said.cause, said.advice).rest
        elif len(own) <= FOLD_OVER:
            row.note = own
        else:
            row.summary = _truncated(lead(own).cause, 60)
            row.message = own
        rows.append(row)
    return rows


def _truncated(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most].rsplit(" ", 1)[0].rstrip(",;:") + "…"


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
        residuals=residual_rows(report.residuals) + residual_rows(report.missing_residuals, missing=True),
        reference_residuals=residual_rows(report.reference_residuals),  # a row the cause is about is marked
        residual_bytes=report.residual_bytes,
        reference_residual_bytes=report.reference_residual_bytes,
        host_residual_bytes=report.host_residual_bytes,
        reference_host_residual_bytes=report.reference_host_residual_bytes,
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
    result.lead = lead(submission.message, report.cause, report.advice)
    result.case_rows = case_rows(report.cases, submission.message, result.lead)
    return _with_memory(result, report)


def _with_memory(result: Result, report: Report) -> Result:
    timeline = report.cost.timeline if report.cost is not None else None
    result.peak_limit_bytes = report.peak_limit_bytes
    if timeline is None:
        return result
    # The curve is the child's walk of the traced program; its height is the verified peak's, so the
    # picture, the figures beside it, the verdict and the leaderboard say one peak for one program.
    timeline = _to_peak(timeline, report.cost.peak_bytes)
    result.peak_bytes = timeline.peak_bytes
    reference = report.reference_timeline
    if reference is not None:
        reference = _to_peak(reference, report.reference_peak_bytes)
    limit = report.peak_limit_bytes or 0
    scale = max(timeline.peak_bytes, reference.peak_bytes if reference is not None else 0, limit)
    result.memory = memory_picture.draw(
        timeline,
        report.residuals,
        title="Your gradient step's memory",
        scale_bytes=scale,
        ident="memory-yours",
        limit_bytes=report.peak_limit_bytes,
    )
    result.memory_text = memory_picture.describe(timeline, report.residuals)
    result.operations = memory_picture.operations(timeline)
    result.recomputes = any(step.recomputed for step in timeline.steps)
    if reference is not None:
        result.reference_peak_bytes = reference.peak_bytes
        result.reference_recomputes = any(step.recomputed for step in reference.steps)
        result.reference_memory = memory_picture.draw(
            reference,
            None,
            title="The reference's memory, as a curve",
            scale_bytes=scale,
            ident="memory-reference",
            limit_bytes=report.peak_limit_bytes,
        )
    return result


def _to_peak(timeline: Timeline, peak: int | None) -> Timeline:
    """``timeline`` with its live bytes scaled so that its highest point is ``peak`` (the verified
    figure); as drawn where the verifier did not measure it (a report from before it did)."""
    drawn = timeline.peak_bytes
    if not peak or not drawn or peak == drawn:
        return timeline
    factor = peak / drawn
    steps = [replace(step, live_bytes=round(step.live_bytes * factor)) for step in timeline.steps]
    scaled = replace(timeline, steps=steps, start_bytes=round(timeline.start_bytes * factor))
    if scaled.peak_bytes != peak:  # rounding: the highest point is the figure itself
        top = max(range(len(steps)), key=lambda i: steps[i].live_bytes, default=None)
        if top is not None and steps[top].live_bytes >= scaled.start_bytes:
            steps[top] = replace(steps[top], live_bytes=peak)
        else:
            scaled = replace(scaled, start_bytes=peak)
    return scaled


@dataclass
class Attempt:
    """A row of "Your recent attempts": six rows of policy_violation told nothing apart, so each
    says when and the first sentence of its message (the cause), cut short."""

    submission: Submission
    gist: str


def attempts(submissions: list[Submission], most: int = 90) -> list[Attempt]:
    """Each with its cause as the result page leads with it: the judge's, where the report has one
    (a runtime error's is worded apart from JAX's raw text), else the message's first sentence.
    The submissions are ``selectors.recent_attempts``'s, which read of the report only these two."""

    def cause(s: Submission) -> str:
        return lead(s.message, s.report_cause or "", s.report_advice or "").cause

    return [Attempt(s, _truncated(cause(s), most) if s.is_done else "") for s in submissions]
