"""The report of one grading, typed: the verdict, the message, and the evidence behind them.

``Report.to_dict`` is the JSON the command line prints and the site stores (keys unchanged since
the first stored report); ``Report.from_dict`` reads a stored one back, old ones included (a key
an older judge did not write reads as empty). The site reads stored reports only through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .evidence import Cost, Residual, ResidualRow, Structure, Timeline


@dataclass
class CaseRow:
    name: str
    sample: bool  # shown to learners
    verdict: str
    message: str
    max_error: float | None  # the largest absolute difference of values and gradients, when compared
    skipped: bool = False  # not run or not checked because an earlier case failed

    def to_dict(self) -> dict:
        found = {
            "name": self.name,
            "sample": self.sample,
            "verdict": self.verdict,
            "message": self.message,
            "max_error": self.max_error,
        }
        return found | {"skipped": True} if self.skipped else found

    @classmethod
    def from_dict(cls, data: dict) -> CaseRow:
        return cls(
            data.get("name", ""),
            bool(data.get("sample")),
            data.get("verdict", ""),
            data.get("message", ""),
            data.get("max_error"),
            bool(data.get("skipped")),
        )


@dataclass
class Report:
    problem: str
    verdict: str
    message: str
    cases: list[CaseRow] = field(default_factory=list)
    # The first inspected case's residuals: the submission's (marked where the rules object), those
    # the required policy saves that it does not, and the reference's; bytes as the verifier counted.
    residuals: list[ResidualRow] = field(default_factory=list)
    missing_residuals: list[ResidualRow] = field(default_factory=list)
    reference_residuals: list[Residual] = field(default_factory=list)
    residual_bytes: int = 0  # on the device (what rankings count): an offloaded residual is below
    reference_residual_bytes: int = 0
    structure: Structure | None = None  # the same case's checkpoints
    programs: dict[str, str] = field(default_factory=dict)  # printed "forward" and "backward", when asked
    cost: Cost | None = None  # when measured
    stdout: str = ""  # what the submission printed
    time_s: float | None = 0.0  # None: a stored report that did not say
    notes: list[str] = field(default_factory=list)  # about the judge itself, such as missing sandbox layers
    submission: str = ""  # the file graded, on the command line
    # Residual bytes an offloading policy moved to host memory (pinned_host), counted apart.
    host_residual_bytes: int = 0
    reference_host_residual_bytes: int = 0
    # The reference's memory over the same case's gradient step: its curve is drawn beside the
    # submission's (``cost.timeline``); never its code. None in reports from before it.
    reference_timeline: Timeline | None = None
    # A policy_violation's structural cause, in one sentence, and one thing to try (``judge.explain``);
    # the message opens with them, the verdict page shows them above the residual table.
    cause: str = ""
    advice: str = ""

    def to_dict(self) -> dict:
        return (
            {
                "problem": self.problem,
                "verdict": self.verdict,
                "message": self.message,
                "cases": [c.to_dict() for c in self.cases],
                "residuals": [r.to_dict() for r in self.residuals],
                "missing_residuals": [r.to_dict() for r in self.missing_residuals],
                "reference_residuals": [r.to_dict() for r in self.reference_residuals],
                "residual_bytes": self.residual_bytes,
                "reference_residual_bytes": self.reference_residual_bytes,
                "structure": self.structure.to_dict() if self.structure is not None else {},
                "programs": self.programs,
                "cost": self.cost.to_dict() if self.cost is not None else {},
                "stdout": self.stdout,
                "time_s": self.time_s,
                "notes": self.notes,
                "submission": self.submission,
            }
            | (
                {
                    "host_residual_bytes": self.host_residual_bytes,
                    "reference_host_residual_bytes": self.reference_host_residual_bytes,
                }
                if self.host_residual_bytes or self.reference_host_residual_bytes
                else {}
            )
            | ({"reference_timeline": self.reference_timeline.to_dict()} if self.reference_timeline is not None else {})
            | ({"cause": self.cause, "advice": self.advice} if self.cause else {})
        )

    @classmethod
    def from_dict(cls, data: dict) -> Report:
        """A stored report (``to_dict``), however old; a missing key reads as empty."""
        return cls(
            problem=data.get("problem", ""),
            verdict=data.get("verdict", ""),
            message=data.get("message", ""),
            cases=[CaseRow.from_dict(c) for c in data.get("cases") or []],
            residuals=[ResidualRow.from_dict(r) for r in data.get("residuals") or []],
            missing_residuals=[ResidualRow.from_dict(r) for r in data.get("missing_residuals") or []],
            reference_residuals=[Residual.from_dict(r) for r in data.get("reference_residuals") or []],
            residual_bytes=data.get("residual_bytes", 0),
            reference_residual_bytes=data.get("reference_residual_bytes", 0),
            structure=Structure.from_dict(data["structure"]) if _table(data.get("structure")) else None,
            programs=data.get("programs") or {},
            cost=Cost.from_dict(data["cost"]) if _table(data.get("cost")) else None,
            stdout=data.get("stdout", ""),
            time_s=data.get("time_s"),
            notes=list(data.get("notes") or []),
            submission=data.get("submission", ""),
            host_residual_bytes=data.get("host_residual_bytes", 0),
            reference_host_residual_bytes=data.get("reference_host_residual_bytes", 0),
            reference_timeline=Timeline.from_dict(data["reference_timeline"])
            if _table(data.get("reference_timeline"))
            else None,
            cause=data.get("cause", ""),
            advice=data.get("advice", ""),
        )


def _table(value) -> bool:
    return isinstance(value, dict) and bool(value)
