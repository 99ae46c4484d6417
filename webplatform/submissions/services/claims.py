"""The life of a grading attempt: a worker claims it, beats while it grades, and completes it; its
author may cancel it; a failure of the judge or a worker that went away puts it back in the queue.

Every transition is one conditional UPDATE (``filter(id=..., status=...).update(...)``): two
workers holding the same message, a sweep racing a slow worker, or a redelivered message can
never move a submission twice.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from judge.data import verdicts
from judge.data.report import Report

from .. import events
from ..models import Submission
from ..signals import verdicts_changed
from .dispatch import dispatch_waiting, grading_settings, publish_on_commit
from .figures import jsonable, metrics_of

logger = logging.getLogger(__name__)
Status = Submission.Status


def claim_submission(*, submission_id: int, task_id: str, worker: str = "") -> Submission | None:
    """queued -> running for the worker process ``worker`` holding message ``task_id``, as a new
    attempt, with a first heartbeat.

    Also takes over a submission left running by this same message: the broker hands a message
    out again only when the worker holding it died (``acks_late`` with
    ``reject_on_worker_lost``), so that attempt is over. None when there is nothing to claim
    (another worker holds it, it is done or cancelled): a duplicate message then does nothing."""
    if not task_id:
        raise ValueError("task_id is required")
    if worker:
        # This process's own claim that went through while its answer was lost (the database went
        # away between the commit and the reply): the same attempt, not a new one.
        own = (
            Submission.objects.select_related("version")
            .filter(pk=submission_id, status=Status.RUNNING, task_id=task_id, claimed_by=worker)
            .first()
        )
        if own is not None:
            return own
    orphaned_by_this_message = Q(status=Status.RUNNING, task_id=task_id)
    now = timezone.now()
    claimed = Submission.objects.filter(Q(status=Status.QUEUED) | orphaned_by_this_message, pk=submission_id).update(
        status=Status.RUNNING,
        attempts=F("attempts") + 1,
        started_at=now,
        task_id=task_id,
        claimed_by=worker,
        heartbeat_at=now,
    )
    if not claimed:
        return None
    events.announce(submission_id)
    return Submission.objects.select_related("version").get(pk=submission_id)


def heartbeat(*, submission_id: int, attempt: int) -> bool:
    """The worker grading this attempt is still at it. False when the row says the attempt is no
    longer the worker's: cancelled by its author, or released by the sweep. (A row this
    connection cannot see, deleted meanwhile, stops nothing: its verdict will find no row.)"""
    mine = Submission.objects.filter(pk=submission_id, status=Status.RUNNING, attempts=attempt)
    if mine.update(heartbeat_at=timezone.now()):
        return True
    return not Submission.objects.filter(pk=submission_id).exists()


def complete_submission(*, submission_id: int, attempt: int, report: Report) -> bool:
    """running -> done with the judge's verdict and the leaderboard's figures; only the attempt
    that claimed it may finish it. An inspection that ran has no verdict (empty): only an
    inspection may end so. The judge's typed report is written to JSON here, once."""
    if report.verdict not in verdicts.VERDICTS and report.verdict != "":
        raise ValueError(f"not a verdict: {report.verdict!r}")
    stored = jsonable(report.to_dict())
    claimed = Submission.objects.filter(pk=submission_id, status=Status.RUNNING, attempts=attempt)
    if report.verdict == "":
        claimed = claimed.filter(kind=Submission.Kind.INSPECT)
    with transaction.atomic():
        updated = claimed.update(
            status=Status.DONE,
            verdict=report.verdict,
            message=report.message,
            report=stored,
            finished_at=timezone.now(),
            **metrics_of(stored),
        )
        if updated:
            user_id, version_id, lane = (
                Submission.objects.filter(pk=submission_id).values_list("user_id", "version_id", "lane").get()
            )
            announce_verdicts({(user_id, version_id)})
            dispatch_waiting(user_id=user_id, lane=lane)
            events.announce(submission_id)
    return bool(updated)


def cancel_submission(*, user, submission_id: int) -> bool:
    """queued or running -> cancelled, by its author. A queued one never reaches a worker (its
    message, if any, finds nothing to claim); a running one is stopped by its worker at its next
    heartbeat. The learner's next waiting grading takes its place. False when it is finished
    already (or not theirs)."""
    with transaction.atomic():
        updated = Submission.objects.filter(
            pk=submission_id, user_id=user.pk, status__in=[Status.QUEUED, Status.RUNNING]
        ).update(status=Status.CANCELLED, finished_at=timezone.now(), message="Cancelled before a verdict.")
        if updated:
            lane = Submission.objects.filter(pk=submission_id).values_list("lane", flat=True).get()
            dispatch_waiting(user_id=user.pk, lane=lane)
            events.announce(submission_id)
    return bool(updated)


def announce_verdicts(pairs) -> None:
    """Tells the summaries of submissions (see ``signals``) which (user, version) changed."""
    verdicts_changed.send(sender=Submission, pairs=set(pairs))


def record_grading_failure(
    *, submission_id: int, attempt: int, message: str, report: Report | None = None, worker_gone: bool = False
) -> str:
    """The judge failed on this attempt (it raised, or said internal_error): queue it again after
    a delay (``RETRY_DELAY_S`` times the attempt); or its worker went away (``worker_gone``):
    queue it again at once, ahead of the queue. After ``MAX_ATTEMPTS`` attempts, finish it as
    ``internal_error`` instead.
    Returns "retrying", "internal_error", or "stale" when this attempt no longer owns it.

    The judge's own words (``message``) go to the log and to the stored report's ``judge_error``,
    never into the message the learner reads: they can quote the problem's reference or package
    ("the reference of ... failed on case ...: <its exception>")."""
    config = grading_settings()
    submission = Submission.objects.filter(pk=submission_id).select_related("version").first()
    if submission is None:
        return "stale"
    logger.warning("judge failure on submission %s, attempt %s: %s", submission_id, attempt, message)
    owned = Submission.objects.filter(pk=submission_id, status=Status.RUNNING, attempts=attempt)
    now = timezone.now()
    with transaction.atomic():
        if attempt >= config["MAX_ATTEMPTS"]:
            final = {
                **(jsonable(report.to_dict()) if report else {"verdict": verdicts.INTERNAL_ERROR}),
                "judge_error": message,
            }
            text = (
                f"The judge failed {attempt} times on this submission; this is not a problem with your code. "
                f"Please submit again later."
            )
            if not owned.update(
                status=Status.DONE, verdict=verdicts.INTERNAL_ERROR, message=text, report=final, finished_at=now
            ):
                return "stale"
            dispatch_waiting(user_id=submission.user_id, lane=submission.lane)
            events.announce(submission_id)
            return "internal_error"
        if not owned.update(
            status=Status.QUEUED,
            published_at=now,
            claimed_by="",
            heartbeat_at=None,
            message="retrying after a failure of the judge",
        ):
            return "stale"
        events.announce(submission_id)
        delay = 0 if worker_gone else config["RETRY_DELAY_S"] * attempt
        publish_on_commit(submission_id, submission.version, submission.lane, countdown=delay, resumed=worker_gone)
    return "retrying"


def release_claim(*, submission_id: int, attempt: int, why: str) -> str:
    """The worker holding this attempt is gone: the submission goes back to the front of the
    queue at once (the attempt counts: a submission that kills every worker ends as
    internal_error)."""
    return record_grading_failure(submission_id=submission_id, attempt=attempt, message=why, worker_gone=True)


def release_claims_of_worker(*, node: str, booted_at: datetime) -> list[int]:
    """Releases what an earlier life of worker ``node`` (same name, restarted) claimed before
    ``booted_at``: that process is gone, so its claims need not wait for the heartbeat rule."""
    gone = Submission.objects.filter(
        status=Status.RUNNING, claimed_by__startswith=f"{node}#", started_at__lt=booted_at
    ).values_list("id", "attempts")
    return [
        sid
        for sid, attempt in gone
        if release_claim(submission_id=sid, attempt=attempt, why=f"its worker {node} was restarted while grading it")
        == "retrying"
    ]
