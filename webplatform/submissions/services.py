"""Writes to submissions: create and enqueue, and the guarded state transitions the grading task
and the sweep use.

Every transition is one conditional UPDATE (``filter(id=..., status=...).update(...)``): two
workers holding the same message, a sweep racing a slow worker, or a redelivered message can
never move a submission twice. The database is the source of truth; a Celery message is only a
nudge, and a lost one is re-sent by the sweep.
"""
from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from judge import verdicts
from judge.evidence import Cost
from judge.report import Report
from kombu.exceptions import OperationalError

from webplatform.core.queues import enqueue, queue_for

from .models import Submission
from .signals import verdicts_changed

logger = logging.getLogger(__name__)
GRADE_TASK = "submissions.grade_submission"  # the task (tasks.py) these services enqueue, by name
Status = Submission.Status
RATE_WINDOW_S = 60
# The leaderboard's figures, copied from an accepted report (see metrics_of).
METRIC_FIELDS = ("residual_bytes", "flops", "peak_bytes", "xla_flops", "xla_peak_bytes")
# Publishing must not hang an HTTP request when Redis is down: try briefly, then leave the
# submission queued for the sweep.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.25, "interval_max": 0.5}


def _grading_settings() -> dict:
    return settings.GRADING


class RateLimited(ValidationError):
    """Too many runs or submissions in the last minute; ``retry_after_s`` says when the next one
    fits."""

    def __init__(self, message: str, *, retry_after_s: int):
        super().__init__(message, code="rate_limited")
        self.retry_after_s = retry_after_s


def _check_source_size(source: str) -> None:
    limit = settings.SUBMISSION_LIMITS["MAX_SOURCE_BYTES"]
    size = len(source.encode("utf-8"))
    if size > limit:
        raise ValidationError(
            f"Your code is {size / 1024:.1f} KiB: the submission is larger than {limit // 1024} KiB, the limit "
            f"for one submission. Remove what the entry point does not use (long comments, unused "
            f"helpers, pasted data) and send it again.", code="source_too_large")


# Each kind has its own limit a minute: "Run samples" is how a learner iterates, so it gets more
# room, and running the samples never uses up the submissions (nor the other way round).
RATE_LIMITS = {Submission.Kind.SUBMIT: "PER_MINUTE", Submission.Kind.RUN: "RUNS_PER_MINUTE"}


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
    if kind == Submission.Kind.RUN:
        times = "once" if limit == 1 else f"{limit} times"
        what = f"You have run the samples {times} in the last minute, the most allowed ({limit} a minute)."
    else:
        sent = "1 submission" if limit == 1 else f"{limit} submissions"
        what = (f"You have sent {sent} in the last minute, the most allowed ({limit} a minute; "
                f"\"Run samples\" has its own limit).")
    raise RateLimited(f"{what} Try again in {wait} s.", retry_after_s=wait)


def create_submission(*, user, problem, source: str, kind: str, version=None) -> Submission:
    """Records an attempt and enqueues it once committed. ``version`` is the version the learner
    opened (a newer one may have been published since); the problem's current one by default.
    Refuses (``ValidationError``, ``RateLimited``) empty or oversized code, a closed problem, and
    a learner over the rate limit."""
    if kind not in Submission.Kind.values:
        raise ValidationError(f"unknown kind {kind!r}")
    if not source.strip():
        raise ValidationError("the submission is empty", code="empty_source")
    if "\x00" in source:
        # Python source cannot hold one, and PostgreSQL's text columns refuse it.
        raise ValidationError("Your code contains a NUL character (\\x00), which Python source cannot hold. "
                              "Remove it (it often comes from pasting binary data) and send it again.",
                              code="null_character")
    _check_source_size(source)
    if not problem.is_active or problem.current_version_id is None:
        raise ValidationError("this problem is not open for submissions", code="problem_closed")
    version = version or problem.current_version
    if version.problem_id != problem.pk:
        raise ValidationError("that version belongs to another problem", code="unknown_version")
    with transaction.atomic():
        _check_rate(user=user, kind=kind, now=timezone.now())
        submission = Submission.objects.create(
            user=user, problem=problem, version=version, kind=kind, source=source,
            status=Status.QUEUED, enqueued_at=timezone.now())
        transaction.on_commit(lambda: enqueue_grading(submission_id=submission.pk, version=version))
    return submission


def enqueue_grading(*, submission_id: int, version, countdown: float = 0) -> bool:
    """Publishes the grading message on the queue of ``version``'s device; False when the broker
    cannot be reached (the submission stays queued and the sweep publishes it again later)."""
    try:
        enqueue(GRADE_TASK, submission_id, queue=queue_for(version), countdown=countdown or None,
                retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except OperationalError as exc:
        logger.warning("could not enqueue submission %s (%s); the sweep will retry", submission_id, exc)
        return False
    return True


def claim_submission(*, submission_id: int, task_id: str) -> Submission | None:
    """queued -> running for the worker holding message ``task_id``, as a new attempt.

    Also takes over a submission left running by this same message: the broker hands a message
    out again only when the worker holding it died (``acks_late`` with
    ``reject_on_worker_lost``), so that attempt is over. None when there is nothing to claim
    (another worker holds it, or it is done): a duplicate message then does nothing."""
    if not task_id:
        raise ValueError("task_id is required")
    orphaned_by_this_message = Q(status=Status.RUNNING, task_id=task_id)
    claimed = Submission.objects.filter(Q(status=Status.QUEUED) | orphaned_by_this_message, pk=submission_id) \
        .update(status=Status.RUNNING, attempts=F("attempts") + 1, started_at=timezone.now(), task_id=task_id)
    if not claimed:
        return None
    return Submission.objects.select_related("version").get(pk=submission_id)


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
    sources = {"residual_bytes": stored.residual_bytes, "flops": cost.flops, "peak_bytes": cost.peak_bytes,
               "xla_flops": cost.xla_flops, "xla_peak_bytes": cost.xla_peak_bytes}
    figures = {name: _number(value) if accepted else None for name, value in sources.items()}
    return {name: None if value is None else round(value) for name, value in figures.items()} | {
        "grading_time_s": _number(stored.time_s)}


def complete_submission(*, submission_id: int, attempt: int, report: dict) -> bool:
    """running -> done with the judge's verdict and the leaderboard's figures; only the attempt
    that claimed it may finish it."""
    report = jsonable(report)
    if report.get("verdict") not in verdicts.VERDICTS:
        raise ValueError(f"not a verdict: {report.get('verdict')!r}")
    with transaction.atomic():
        updated = Submission.objects.filter(pk=submission_id, status=Status.RUNNING, attempts=attempt).update(
            status=Status.DONE, verdict=report["verdict"], message=report.get("message", ""), report=report,
            finished_at=timezone.now(), **metrics_of(report))
        if updated:
            _announce(Submission.objects.filter(pk=submission_id).values_list("user_id", "version_id"))
    return bool(updated)


def _announce(pairs) -> None:
    """Tells the summaries of submissions (see ``signals``) which (user, version) changed."""
    verdicts_changed.send(sender=Submission, pairs=set(pairs))


def rejudge_submission(*, submission_id: int) -> bool:
    """done -> queued, to be graded again against the problem's current version (a new version
    was published, or the judge changed). Its verdict and figures are cleared at once, so the
    rankings drop it until the new verdict arrives. False when it is not done (already queued or
    being graded) or its problem has no current version."""
    submission = Submission.objects.select_related("problem__current_version").filter(pk=submission_id).first()
    if submission is None or submission.problem.current_version is None:
        return False
    return _requeue(submission, submission.problem.current_version, Q())


def _requeue(submission, version, extra: Q) -> bool:
    """The one done -> queued transition of rejudges: verdict and figures cleared, the summaries
    told, the grading enqueued once committed."""
    with transaction.atomic():
        updated = Submission.objects.filter(extra, pk=submission.pk, status=Status.DONE).update(
            status=Status.QUEUED, version=version, verdict="", message="", report=None, attempts=0, task_id="",
            enqueued_at=timezone.now(), started_at=None, finished_at=None,
            grading_time_s=None, **dict.fromkeys(METRIC_FIELDS))
        if updated:
            _announce({(submission.user_id, submission.version_id), (submission.user_id, version.pk)})
            transaction.on_commit(lambda: enqueue_grading(submission_id=submission.pk, version=version))
    return bool(updated)


@transaction.atomic
def delete_submissions(*, submission_ids) -> int:
    """Deletes these submissions (an admin's clean-up), telling the summaries of submissions."""
    doomed = Submission.objects.filter(pk__in=list(submission_ids))
    pairs = set(doomed.values_list("user_id", "version_id"))
    count, _ = doomed.delete()
    _announce(pairs)
    return count


def record_grading_failure(*, submission_id: int, attempt: int, message: str, report: dict | None = None) -> str:
    """The judge failed on this attempt (it raised, or said internal_error): queue it again after
    a delay, or, after ``MAX_ATTEMPTS`` attempts, finish it as ``internal_error``.
    Returns "retrying", "internal_error", or "stale" when this attempt no longer owns it.

    The judge's own words (``message``) go to the log and to the stored report's ``judge_error``,
    never into the message the learner reads: they can quote the problem's reference or package
    ("the reference of ... failed on case ...: <its exception>")."""
    config = _grading_settings()
    submission = Submission.objects.filter(pk=submission_id).select_related("version").first()
    if submission is None:
        return "stale"
    logger.warning("judge failure on submission %s, attempt %s: %s", submission_id, attempt, message)
    if attempt >= config["MAX_ATTEMPTS"]:
        final = {**(jsonable(report) if report else {"verdict": verdicts.INTERNAL_ERROR}), "judge_error": message}
        text = (f"The judge failed {attempt} times on this submission; this is not a problem with your code. "
                f"Please submit again later.")
        updated = Submission.objects.filter(pk=submission_id, status=Status.RUNNING, attempts=attempt).update(
            status=Status.DONE, verdict=verdicts.INTERNAL_ERROR, message=text, report=final,
            finished_at=timezone.now())
        return "internal_error" if updated else "stale"
    updated = Submission.objects.filter(pk=submission_id, status=Status.RUNNING, attempts=attempt).update(
        status=Status.QUEUED, enqueued_at=timezone.now(), message="retrying after a failure of the judge")
    if not updated:
        return "stale"
    delay = config["RETRY_DELAY_S"] * attempt
    transaction.on_commit(lambda: enqueue_grading(submission_id=submission_id, version=submission.version,
                                                  countdown=delay))
    return "retrying"


def requeue_submission(*, submission_id: int, version) -> bool:
    """done -> queued against ``version`` (a rejudge after a new version was published); then it
    is graded like any submission, through the same claim and completion. Only a finished
    submission of the version's problem on another version moves, so repeating it does nothing."""
    submission = Submission.objects.filter(pk=submission_id, problem_id=version.problem_id).first()
    if submission is None:
        return False
    return _requeue(submission, version, ~Q(version=version))


@dataclass
class SweepResult:
    requeued: list[int] = field(default_factory=list)  # re-published, still queued
    restarted: list[int] = field(default_factory=list)  # were running on a worker that went away
    failed: list[int] = field(default_factory=list)  # out of attempts: internal_error


def sweep_stale_submissions(*, now: datetime | None = None) -> SweepResult:
    """Re-enqueues what a lost message or a dead worker left behind (run by Celery beat).

    - queued since before ``STALE_QUEUED_S``: the message was lost (a broker restart without
      persistence, or Redis down when it was created): publish it again;
    - running since before ``STALE_RUNNING_S`` (longer than any problem's wall limit): its
      worker died; it goes back to queued, or to ``internal_error`` once out of attempts.
    Duplicate messages are harmless: only one claim of a queued submission succeeds."""
    config = _grading_settings()
    now = now or timezone.now()
    result = SweepResult()
    stale_queued = Submission.objects.filter(
        status=Status.QUEUED, enqueued_at__lt=now - timedelta(seconds=config["STALE_QUEUED_S"]))
    for submission in stale_queued.select_related("version").only("id", "version__device", "enqueued_at"):
        if Submission.objects.filter(pk=submission.pk, status=Status.QUEUED,
                                     enqueued_at=submission.enqueued_at).update(enqueued_at=now):
            enqueue_grading(submission_id=submission.pk, version=submission.version)
            result.requeued.append(submission.pk)
    stale_running = Submission.objects.filter(
        status=Status.RUNNING, started_at__lt=now - timedelta(seconds=config["STALE_RUNNING_S"]))
    for submission in stale_running.select_related("version").only("id", "attempts", "version__device"):
        outcome = record_grading_failure(
            submission_id=submission.pk, attempt=submission.attempts,
            message="the worker grading it stopped responding")
        if outcome == "internal_error":
            result.failed.append(submission.pk)
        elif outcome == "retrying":
            result.restarted.append(submission.pk)
    return result
