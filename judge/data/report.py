"""The report of one grading, typed: the verdict, the message, and the evidence behind them.

``Report.to_dict`` is the JSON the command line prints and the site stores; ``Report.from_dict``
reads a stored one back, old ones included (a field an older judge did not write reads as its
default, ``judge.data.records``). The site reads stored reports only through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .evidence import Cost, ResidualRow, Structure, Timeline
from .records import Record


@dataclass
class CaseRow(Record):
    name: str
    sample: bool  # shown to learners
    verdict: str
    message: str
    max_error: float | None  # the largest absolute difference of values and gradients, when compared
    skipped: bool = False  # not run or not checked because an earlier case failed


@dataclass
class Report(Record):
    problem: str
    verdict: str
    message: str
    cases: list[CaseRow] = field(default_factory=list)
    # The first inspected case's residuals: the submission's (marked where the rules object), those
    # the required policy saves that it does not, and the reference's; bytes as the verifier counted.
    residuals: list[ResidualRow] = field(default_factory=list)
    missing_residuals: list[ResidualRow] = field(default_factory=list)
    reference_residuals: list[ResidualRow] = field(default_factory=list)  # marked where a row is told
    # On the device (what rankings count): an offloaded residual is below. None: not measured (a
    # stored report that did not say, or said something that is not a number of bytes).
    residual_bytes: int | None = 0
    reference_residual_bytes: int = 0
    structure: Structure | None = None  # the same case's checkpoints
    programs: dict[str, str] = field(default_factory=dict)  # printed "forward" and "backward", when asked
    cost: Cost | None = None  # when measured
    stdout: str = ""  # what the submission printed
    time_s: float | None = field(default=0.0, metadata={"absent": None})  # None: a stored report that did not say
    notes: list[str] = field(default_factory=list)  # about the judge itself, such as missing sandbox layers
    submission: str = ""  # the file graded, on the command line
    # Residual bytes an offloading policy moved to host memory (pinned_host), counted apart.
    host_residual_bytes: int = 0
    reference_host_residual_bytes: int = 0
    # The reference's memory over the same case's gradient step: its curve is drawn beside the
    # submission's (``cost.timeline``); never its code. None in reports from before it.
    reference_timeline: Timeline | None = None
    # The reference's peak on the same case, as the verifier measured it (``Cost.peak_bytes``), and
    # this problem's limit on the peak (None: no limit): the page shows the learner's peak beside both.
    reference_peak_bytes: int | None = None
    peak_limit_bytes: int | None = None
    # A policy_violation's structural cause, in one sentence, and one thing to try (``judge.words``);
    # the message opens with them, the verdict page shows them above the residual table.
    cause: str = ""
    advice: str = ""
