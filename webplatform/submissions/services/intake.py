"""A learner's attempt comes in: the checks it must pass (its text, the problem open, the rate
limit of its kind) before it is recorded and offered to the fair queue."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from judge.data import source_text

from ..models import LANE_OF_KIND, Submission
from .dispatch import dispatch_waiting

Status = Submission.Status
RATE_WINDOW_S = 60


class RateLimited(ValidationError):
    """Too many runs or submissions in the last minute; ``retry_after_s`` says when the next one
    fits."""

    def __init__(self, message: str, *, retry_after_s: int):
        super().__init__(message, code="rate_limited")
        self.retry_after_s = retry_after_s


# Each kind has its own limit a minute: "Run samples" and "Inspect" are how a learner iterates, so
# they get more room, and neither uses up the submissions nor the other (nor the other way round).
RATE_LIMITS = {
    Submission.Kind.SUBMIT: "PER_MINUTE",
    Submission.Kind.RUN: "RUNS_PER_MINUTE",
    Submission.Kind.INSPECT: "INSPECTS_PER_MINUTE",
}


def _check_rate(*, user, kind: str, now: datetime) -> None:
    """At most the kind's limit (``SUBMISSION_LIMITS``, 0 for none) of runs, or of submissions,
    in any 60 seconds. Called inside the creating transaction with the learner's row locked, so
    that two requests at once cannot both take the last slot (on SQLite the IMMEDIATE transaction
    already serialises writers)."""
    limit = settings.SUBMISSION_LIMITS[RATE_LIMITS[kind]]
    if limit <= 0:  # 0 switches the limit off
        return
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    window = Submission.objects.filter(user=user, kind=kind, created_at__gt=now - timedelta(seconds=RATE_WINDOW_S))
    recent = list(window.order_by("-created_at").values_list("created_at", flat=True)[:limit])
    if len(recent) < limit:
        return
    # A slot frees when the limit-th most recent one leaves the window.
    wait = max(1, math.ceil((recent[-1] + timedelta(seconds=RATE_WINDOW_S) - now).total_seconds()))
    times = "once" if limit == 1 else f"{limit} times"
    if kind == Submission.Kind.RUN:
        what = f"You have run the samples {times} in the last minute, the most allowed ({limit} a minute)."
    elif kind == Submission.Kind.INSPECT:
        what = f"You have inspected your code {times} in the last minute, the most allowed ({limit} a minute)."
    else:
        sent = "1 submission" if limit == 1 else f"{limit} submissions"
        what = (
            f"You have sent {sent} in the last minute, the most allowed ({limit} a minute; "
            f'"Run samples" and "Inspect" have their own).'
        )
    raise RateLimited(f"{what} Try again in {wait} s.", retry_after_s=wait)


def create_submission(*, user, problem, source: str, kind: str, version=None) -> Submission:
    """Records an attempt and enqueues it once committed. ``version`` is the version the learner
    opened (a newer one may have been published since); the problem's current one by default.
    Refuses (``ValidationError``, ``RateLimited``) empty or oversized code, a closed problem, and
    a learner over the rate limit."""
    if kind not in Submission.Kind.values:
        raise ValidationError(f"unknown kind {kind!r}")
    unreadable = source_text.unreadable(source, settings.SUBMISSION_LIMITS["MAX_SOURCE_BYTES"])
    if unreadable is not None:
        raise ValidationError(unreadable.message, code=unreadable.code)
    if not problem.is_active or problem.current_version_id is None:
        raise ValidationError("this problem is not open for submissions", code="problem_closed")
    version = version or problem.current_version
    if version.problem_id != problem.pk:
        raise ValidationError("that version belongs to another problem", code="unknown_version")
    with transaction.atomic():
        _check_rate(user=user, kind=kind, now=timezone.now())
        submission = Submission.objects.create(
            user=user,
            problem=problem,
            version=version,
            kind=kind,
            source=source,
            lane=LANE_OF_KIND[kind],
            status=Status.QUEUED,
            enqueued_at=timezone.now(),
        )
        dispatch_waiting(user_id=user.pk, lane=submission.lane)
    return submission
