"""The periods the global ranking can be filtered by. A period counts the problems a learner first
solved in it, each with the penalty it took to get there (attempts before the period included):
accepting an old problem again is not a new solve."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

PERIODS = {"all": "All time", "month": "This month", "week": "This week"}
DEFAULT = "all"


def parse(value: str | None) -> str:
    """A known period name; anything else (a stale link, a typo) is all time."""
    return value if value in PERIODS else DEFAULT


def start_of(period: str, now: datetime | None = None) -> datetime | None:
    """The first instant of the period in the site's time zone (UTC): the 1st of the month, or
    Monday 00:00 of the week; None for all time."""
    if period == "all":
        return None
    now = timezone.localtime(now or timezone.now())
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        return midnight.replace(day=1)
    if period == "week":
        return midnight - timedelta(days=midnight.weekday())
    raise ValueError(f"unknown period {period!r}")
