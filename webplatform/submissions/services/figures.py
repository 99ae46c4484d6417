"""The figures a graded submission is ranked by: taken from an accepted report, and stored again
when the judge's counting rules change and the cost is measured anew."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from judge.data import verdicts
from judge.data.evidence import Cost
from judge.data.report import Report

from ..models import Submission

Status = Submission.Status
# The leaderboard's figures, copied from an accepted report (see metrics_of).
METRIC_FIELDS = ("residual_bytes", "flops", "peak_bytes", "xla_flops", "xla_peak_bytes")


def jsonable(report: dict) -> dict:
    """The report as plain JSON (numpy scalars become numbers, anything odd becomes text)."""
    return json.loads(json.dumps(report, default=lambda o: o.item() if hasattr(o, "item") else str(o)))


def _number(value) -> float | None:
    """A figure of a report, or None for anything that is not a finite number (a report is data
    that came back from a child process)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def metrics_of(report: dict) -> dict:
    """The columns the leaderboard ranks by: residual bytes, and from ``cost`` our traced FLOPs and
    peak bytes beside XLA's estimates, for accepted reports only (a rejected submission's figures
    rank nothing); the grading time for all."""
    stored = Report.from_dict(report)
    accepted = stored.verdict == verdicts.ACCEPTED
    cost = stored.cost or Cost()
    sources = {
        "residual_bytes": stored.residual_bytes,
        "flops": cost.flops,
        "peak_bytes": cost.peak_bytes,
        "xla_flops": cost.xla_flops,
        "xla_peak_bytes": cost.xla_peak_bytes,
    }
    figures = {name: _number(value) if accepted else None for name, value in sources.items()}
    return {name: None if value is None else round(value) for name, value in figures.items()} | {
        "grading_time_s": _number(stored.time_s)
    }


# The figures of a report's cost that a measurement makes (residual bytes come from the grading).
COST_FIGURES = ("flops", "peak_bytes", "xla_flops", "xla_peak_bytes")


@dataclass(frozen=True)
class Remeasured:
    """A graded submission's cost figures (``COST_FIGURES``, rounded) before and after they were
    measured again."""

    before: dict
    after: dict

    @property
    def changed(self) -> dict:
        """{figure: (before, after)} of the figures that changed."""
        return {
            name: (self.before[name], self.after[name])
            for name in COST_FIGURES
            if self.before[name] != self.after[name]
        }


def _cost_figures(cost: Cost | None) -> dict:
    found = {name: _number(getattr(cost, name)) if cost is not None else None for name in COST_FIGURES}
    return {name: None if value is None else round(value) for name, value in found.items()}


def record_figures(*, submission_id: int, finished_at: datetime, cost: Cost) -> Remeasured | None:
    """Stores cost figures measured again (after the judge's counting rules were corrected) for a
    graded submission: its report's ``cost``, and the leaderboard's columns as ``metrics_of``
    makes them from its stored verdict, which stays. Only while it is still the grading that was
    measured (done, finished at ``finished_at``): None when a rejudge has moved it since. Moves
    ``measured_at``, so that no ranking cached before is served after."""
    graded = Submission.objects.filter(pk=submission_id, status=Status.DONE, finished_at=finished_at)
    stored = graded.values_list("report", flat=True).first()
    if stored is None:
        return None
    report = {**stored, "cost": jsonable(cost.to_dict())}
    columns = {name: value for name, value in metrics_of(report).items() if name in METRIC_FIELDS}
    if not graded.update(report=report, measured_at=timezone.now(), **columns):
        return None
    return Remeasured(_cost_figures(Report.from_dict(stored).cost), _cost_figures(cost))
