"""What counts on an assignment, as plain Python: the rules the assignment page states, in one
place.

For each problem of an assignment a learner's counted submissions (recorded, with a verdict that
counts: ``leaderboard.rules``), in time order, fold into a ``Cell``: the first acceptance made by
the due time earns the problem's points (its weight: 1 unless the instructor set another); failing that, the first made in the late window earns it
less the penalty; failing that, the cell shows the verdict that came closest. A submission's time
is when it was made (``created_at``): a rejudge, graded later, keeps it. Submissions before the
assignment opened or after its last deadline do not count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from judge.data import verdicts

# The verdict that came closest, first: accepted, then right numbers with the wrong residuals...
CLOSEST_FIRST = tuple(reversed(verdicts.SEVERITY))


@dataclass(frozen=True)
class Deadlines:
    opens_at: datetime
    due_at: datetime
    late_until: datetime | None  # None: no late window
    penalty_percent: int

    @property
    def closes_at(self) -> datetime:
        return self.late_until or self.due_at

    def counts(self, at: datetime) -> bool:
        return self.opens_at <= at <= self.closes_at

    def is_late(self, at: datetime) -> bool:
        return at > self.due_at

    @property
    def late_credit(self) -> float:
        return (100 - self.penalty_percent) / 100


def deadlines(*, opens_at, due_at, late_until, penalty_percent, extended_to=None) -> Deadlines:
    """An assignment's deadlines, or one learner's with an extension: a later (or earlier) due
    time, and the late window, when there is one, as long as before after it."""
    if extended_to is None:
        return Deadlines(opens_at, due_at, late_until, penalty_percent)
    late = extended_to + (late_until - due_at) if late_until else None
    return Deadlines(opens_at, extended_to, late, penalty_percent)


@dataclass(frozen=True)
class Cell:
    verdict: str  # the best verdict that counts; "" before any counted attempt
    attempts: int  # counted attempts (made while the assignment was open)
    outside: int  # attempts made before it opened or after its last deadline: not counted
    submission_id: int | None  # the attempt the verdict comes from
    accepted_at: datetime | None
    late: bool
    credit: float  # 1, 1 less the penalty when late, or 0

    @property
    def solved(self) -> bool:
        return self.accepted_at is not None


EMPTY = Cell("", 0, 0, None, None, False, 0.0)


def cell(attempts: Iterable[tuple[int, datetime, str]], rules: Deadlines) -> Cell:
    """``attempts``: (submission id, created_at, verdict) of one learner's counted submissions to
    one problem, in time order."""
    counted, outside = [], 0
    for attempt in attempts:
        if rules.counts(attempt[1]):
            counted.append(attempt)
        else:
            outside += 1
    if not counted:
        return Cell("", 0, outside, None, None, False, 0.0)
    accepted = next((a for a in counted if a[2] == verdicts.ACCEPTED), None)
    if accepted is not None:
        late = rules.is_late(accepted[1])
        return Cell(
            verdicts.ACCEPTED, len(counted), outside, accepted[0], accepted[1], late, rules.late_credit if late else 1.0
        )
    best = min(counted, key=lambda a: (CLOSEST_FIRST.index(a[2]), -a[1].timestamp(), -a[0]))
    return Cell(best[2], len(counted), outside, best[0], None, False, 0.0)


@dataclass(frozen=True)
class Score:
    points: float  # the weighted credits
    out_of: int  # the weights' total
    solved: int
    late: int
    problems: int  # how many problems the assignment sets (what ``solved`` is out of)

    @property
    def percent(self) -> float:
        return 100 * self.points / self.out_of if self.out_of else 0.0


def score(cells: Iterable[Cell], weights: Iterable[int] | None = None) -> Score:
    """``weights``: each problem's weight, in the cells' order (1 each when None): a problem
    earns its credit times its weight, out of the weights' total."""
    cells = list(cells)
    weights = [1] * len(cells) if weights is None else list(weights)
    if len(weights) != len(cells):
        raise ValueError(f"{len(cells)} cells but {len(weights)} weights")
    return Score(
        round(sum(c.credit * w for c, w in zip(cells, weights)), 4),
        sum(weights),
        sum(c.solved for c in cells),
        sum(c.solved and c.late for c in cells),
        len(cells),
    )
