"""The fair queue: publishing a grading's message, and holding a learner's gradings back while
``PER_LEARNER_IN_FLIGHT`` of a lane are published or running.

The rest wait in the database (``published_at`` empty) and are published one by one as the
earlier ones finish, so one learner's ten infinite loops wait behind each other, not in front of
everyone else's submissions.
"""

from __future__ import annotations

import logging
from collections import Counter

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from kombu.exceptions import OperationalError

from webplatform.core.queues import BACKGROUND, enqueue, queue_for

from ..models import Submission

logger = logging.getLogger(__name__)
Status = Submission.Status
GRADE_TASK = "submissions.grade_submission"  # the task (tasks.py) these services enqueue, by name


# Publishing must not hang an HTTP request when Redis is down: try briefly, then leave the
# submission queued for the sweep.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.25, "interval_max": 0.5}


def grading_settings() -> dict:
    return settings.GRADING


def enqueue_grading(*, submission_id: int, version, lane: str, countdown: float = 0, resumed: bool = False) -> bool:
    """Publishes the grading message on the queue of ``version``'s device and ``lane`` (ahead of
    the others when ``resumed``); False when the broker cannot be reached (the submission stays
    queued and the sweep publishes it again later)."""
    try:
        enqueue(
            GRADE_TASK,
            submission_id,
            queue=queue_for(version, lane),
            lane=lane,
            resumed=resumed,
            countdown=countdown or None,
            retry=True,
            retry_policy=PUBLISH_RETRY_POLICY,
        )
    except OperationalError as exc:
        logger.warning("could not enqueue submission %s (%s); the sweep will retry", submission_id, exc)
        return False
    return True


def publish_on_commit(submission_id: int, version, lane: str, countdown: float = 0, resumed: bool = False) -> None:
    transaction.on_commit(
        lambda: enqueue_grading(
            submission_id=submission_id, version=version, lane=lane, countdown=countdown, resumed=resumed
        )
    )


def _in_flight(*, user_id: int, lane: str):
    """The learner's gradings of ``lane`` that hold a message or a worker."""
    return Submission.objects.filter(user_id=user_id, lane=lane).filter(
        Q(status=Status.RUNNING) | Q(status=Status.QUEUED, published_at__isnull=False)
    )


def dispatch_waiting(*, user_id: int, lane: str) -> int:
    """Publishes (once committed) the learner's waiting gradings of ``lane``, oldest first, while
    fewer than ``PER_LEARNER_IN_FLIGHT`` are in flight (background work is never held). Called in
    the transaction of every change that adds a grading or ends one; the learner's row is locked
    so that two of them at once cannot both take the last place (SQLite's IMMEDIATE transactions
    already serialise writers). Returns how many it published."""
    cap = grading_settings()["PER_LEARNER_IN_FLIGHT"]
    get_user_model().objects.select_for_update().filter(pk=user_id).first()
    waiting = Submission.objects.filter(user_id=user_id, lane=lane, status=Status.QUEUED, published_at__isnull=True)
    free = None if cap <= 0 or lane == BACKGROUND else cap - _in_flight(user_id=user_id, lane=lane).count()
    if free is not None and free <= 0:
        return 0
    now, published = timezone.now(), 0
    for submission in (
        waiting.select_related("version").only("id", "version__device").order_by("enqueued_at", "id")[:free]
    ):
        if Submission.objects.filter(pk=submission.pk, status=Status.QUEUED, published_at__isnull=True).update(
            published_at=now
        ):
            publish_on_commit(submission.pk, submission.version, lane)
            published += 1
    return published


def held_with_room() -> set[tuple[int, str]]:
    """(learner, lane) pairs with gradings held by the cap although fewer are in flight: normally
    none (each finished grading publishes the next), unless a worker died between the two."""
    cap = grading_settings()["PER_LEARNER_IN_FLIGHT"]
    held = set(
        Submission.objects.filter(status=Status.QUEUED, published_at__isnull=True)
        .values_list("user_id", "lane")
        .distinct()
        .order_by()
    )
    if not held or cap <= 0:
        return held
    busy = Counter(
        Submission.objects.filter(Q(status=Status.RUNNING) | Q(status=Status.QUEUED, published_at__isnull=False))
        .values_list("user_id", "lane")
        .order_by()
    )
    return {pair for pair in held if pair[1] == BACKGROUND or busy[pair] < cap}
