"""Putting right, from the database's truth, what a lost message or a dead worker left behind; and
the workers' own record of being alive. The database is the source of truth; a Celery message is
only a nudge, and a lost one is re-sent here."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from webplatform.core import broker
from webplatform.core.queues import grading_queues

from ..models import Submission, Sweep, Worker
from .claims import release_claim
from .dispatch import GRADE_TASK, dispatch_waiting, enqueue_grading, grading_settings, held_with_room

Status = Submission.Status


@dataclass
class SweepResult:
    republished: list[int] = field(default_factory=list)  # queued, but their message was lost
    released: list[int] = field(default_factory=list)  # were running on a worker that went away
    failed: list[int] = field(default_factory=list)  # released, out of attempts: internal_error
    dispatched: int = 0  # held by the per-learner cap, and now published
    broker: str = "ok"  # or why it could not be read (then nothing is republished)
    claims_checked: bool = True  # False after a gap: the heartbeats get one period to catch up


def sweep(*, now: datetime | None = None) -> SweepResult:
    """Puts right, from the database's truth, what a lost message or a dead worker left behind
    (Celery beat runs it every few seconds, ahead of any grading in its queue):

    - a claim whose heartbeat stopped more than ``CLAIM_TIMEOUT_S`` ago: its worker is gone; the
      submission goes back to the queue (or to internal_error once out of attempts);
    - a queued submission whose message is in no queue of the broker (a broker restart, a publish
      that failed while Redis was away), published more than ``REPUBLISH_AFTER_S`` ago: publish
      it again;
    - a learner with a free place under the cap and gradings waiting: publish them.
    Duplicate messages are harmless: only one claim of a queued submission succeeds.

    After a gap in the sweeps (the database was away, so no heartbeat could be written either)
    this run releases nothing and counts every running claim as having beaten now: its worker
    gets a whole ``CLAIM_TIMEOUT_S`` to beat again. Counting runs would not do: the sweeps beat
    sent during the outage all run back to back once the database is back, and the second one,
    milliseconds later, took a grading whose claim had just been retried for a dead worker's."""
    config = grading_settings()
    now = now or timezone.now()
    result = SweepResult()
    with transaction.atomic():
        state, _ = Sweep.objects.select_for_update().get_or_create(pk=1)
        gap = state.last_run_at is None or now - state.last_run_at > timedelta(seconds=config["SWEEP_GAP_S"])
        Sweep.objects.filter(pk=1).update(last_run_at=now, runs=F("runs") + 1)
    result.claims_checked = not gap
    if gap:
        Submission.objects.filter(status=Status.RUNNING, heartbeat_at__lt=now).update(heartbeat_at=now)
    else:
        stale = Submission.objects.filter(
            status=Status.RUNNING, heartbeat_at__lt=now - timedelta(seconds=config["CLAIM_TIMEOUT_S"])
        )
        for sid, attempt in stale.values_list("id", "attempts"):
            outcome = release_claim(submission_id=sid, attempt=attempt, why="its worker stopped sending heartbeats")
            if outcome == "retrying":
                result.released.append(sid)
            elif outcome == "internal_error":
                result.failed.append(sid)
    try:
        waiting = broker.waiting_args(GRADE_TASK, grading_queues())
    except broker.BrokerUnavailable as exc:
        result.broker = str(exc)
    else:
        lost = (
            Submission.objects.filter(
                status=Status.QUEUED, published_at__lt=now - timedelta(seconds=config["REPUBLISH_AFTER_S"])
            )
            .exclude(pk__in=waiting)
            .select_related("version")
            .only("id", "lane", "published_at", "version__device")
        )
        for submission in lost:
            if Submission.objects.filter(
                pk=submission.pk, status=Status.QUEUED, published_at=submission.published_at
            ).update(published_at=now):
                enqueue_grading(submission_id=submission.pk, version=submission.version, lane=submission.lane)
                result.republished.append(submission.pk)
    for user_id, lane in held_with_room():
        with transaction.atomic():
            result.dispatched += dispatch_waiting(user_id=user_id, lane=lane)
    Sweep.objects.filter(pk=1).update(
        republished=F("republished") + len(result.republished),
        released=F("released") + len(result.released) + len(result.failed),
        dispatched=F("dispatched") + result.dispatched,
    )
    return result


def record_worker(
    *, name: str, queues: str = "", started_at: datetime | None = None, layers: dict | None = None
) -> None:
    """A worker node says it is alive (and, once its grading process has probed them, which
    sandbox layers it has)."""
    now = timezone.now()
    fields = {"seen_at": now}
    if started_at is not None:
        fields.update(started_at=started_at, queues=queues)
    if layers is not None:
        fields["layers"] = layers
    if not Worker.objects.filter(pk=name).update(**fields):
        Worker.objects.update_or_create(pk=name, defaults={"started_at": started_at or now, **fields})
