"""The ranking rules for one learner on one problem version, as plain Python: what the page
states, in one place. ``summarize`` folds the learner's counted submissions to the version (time
order) into what the global ranking adds up.

Counted: recorded submissions ("Submit", never "Run samples") with a verdict; a judge failure
(``internal_error``) is never the learner's fault and counts neither way."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from judge.data import verdicts

PENALTY_PER_REJECTION_MIN = 20
NOT_COUNTED = ("", verdicts.INTERNAL_ERROR)


@dataclass(frozen=True)
class Summary:
    submissions: int
    accepted: int
    first_submitted_at: datetime
    first_accepted_at: datetime | None
    rejected_before: int  # before the first acceptance; all of them while unsolved
    penalty_min: int | None  # only once solved

    @property
    def solved(self) -> bool:
        return self.first_accepted_at is not None


def penalty_minutes(first_submitted_at: datetime, first_accepted_at: datetime, rejected_before: int) -> int:
    """Whole minutes from the first submission to the first acceptance, plus the fixed penalty
    per rejected submission before it (the ICPC rule, with the learner's own start as the start)."""
    waited = int((first_accepted_at - first_submitted_at).total_seconds() // 60)
    return waited + PENALTY_PER_REJECTION_MIN * rejected_before


def summarize(submissions: Iterable[tuple[datetime, str]]) -> Summary | None:
    """``submissions``: (created_at, verdict) of counted submissions in time order; None for none."""
    count = accepted = rejected_before = 0
    first_submitted = first_accepted = None
    for created_at, verdict in submissions:
        count += 1
        first_submitted = first_submitted or created_at
        if verdict == verdicts.ACCEPTED:
            accepted += 1
            first_accepted = first_accepted or created_at
        elif first_accepted is None:
            rejected_before += 1
    if not count:
        return None
    penalty = penalty_minutes(first_submitted, first_accepted, rejected_before) if first_accepted else None
    return Summary(count, accepted, first_submitted, first_accepted, rejected_before, penalty)
