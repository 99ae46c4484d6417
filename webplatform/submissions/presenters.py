"""Turns a stored ``judge.Report`` dict into what the verdict templates show."""
from __future__ import annotations

from dataclasses import dataclass, field

from judge.verdicts import DESCRIPTIONS

from .models import Submission


@dataclass
class ResidualRow:
    type: str
    bytes: int
    saved_value: str
    line: int | None
    offending: bool = False
    missing: bool = False  # saved by the required policy, not by the submission
    reason: str = ""


@dataclass
class Result:
    verdict: str
    description: str
    message: str
    cases: list = field(default_factory=list)
    yours: list[ResidualRow] = field(default_factory=list)
    required: list[ResidualRow] = field(default_factory=list)
    your_bytes: int = 0
    required_bytes: int = 0
    checkpoints: list = field(default_factory=list)
    forward: str = ""
    backward: str = ""
    stdout: str = ""
    time_s: float | None = None
    notes: list = field(default_factory=list)
    # The judge's cost figures of a recorded submission (flops, peak_bytes, xla_flops,
    # xla_peak_bytes); empty for "Run samples", which is not measured.
    cost: dict = field(default_factory=dict)

    @property
    def has_residuals(self) -> bool:
        return bool(self.yours or self.required)

    @property
    def bytes_over(self) -> int:
        """Bytes the submission saves beyond what the policy keeps (negative: fewer)."""
        return self.your_bytes - self.required_bytes


def describe(residual: dict) -> str:
    what = residual.get("what", "")
    text = {"argument": f"argument {what}", "named": f"named '{what}'",
            "primitive": f"output of {what}"}.get(residual.get("kind"), residual.get("kind", ""))
    if residual.get("stacked"):
        text += f" (x{residual['stacked']} scan steps)"
    return text


def _row(residual: dict, **extra) -> ResidualRow:
    return ResidualRow(type=residual.get("type", ""), bytes=residual.get("bytes", 0), saved_value=describe(residual),
                       line=residual.get("line"), offending=bool(residual.get("offending")),
                       reason=residual.get("reason", ""), **extra)


def present(submission: Submission) -> Result | None:
    """None while the submission is not graded yet."""
    if not submission.is_done:
        return None
    report = submission.report or {}
    programs = report.get("programs") or {}
    return Result(
        verdict=submission.verdict,
        description=DESCRIPTIONS.get(submission.verdict, ""),
        message=submission.message,
        cases=report.get("cases", []),
        yours=[_row(r) for r in report.get("residuals", [])]
        + [_row({**r, "offending": True}, missing=True) for r in report.get("missing_residuals", [])],
        required=[_row(r) for r in report.get("reference_residuals", [])],
        your_bytes=report.get("residual_bytes", 0),
        required_bytes=report.get("reference_residual_bytes", 0),
        checkpoints=(report.get("structure") or {}).get("checkpoints", []),
        forward=programs.get("forward", ""),
        backward=programs.get("backward", ""),
        stdout=report.get("stdout", ""),
        time_s=report.get("time_s"),
        notes=report.get("notes", []),
        cost=report.get("cost") if isinstance(report.get("cost"), dict) else {},
    )
