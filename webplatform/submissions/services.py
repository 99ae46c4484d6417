"""Writes to submissions: create and enqueue, and the guarded state transitions the grading task
and the sweep use.

Every transition is one conditional UPDATE (``filter(id=..., status=...).update(...)``): two
workers holding the same message, a sweep racing a slow worker, or a redelivered message can
never move a submission twice. The database is the source of truth; a Celery message is only a
nudge, and a lost one is re-sent by the sweep.

The queue is fair: a learner has at most ``PER_LEARNER_IN_FLIGHT`` gradings of a lane published
or running at once; the rest wait in the database (``published_at`` empty) and are published one
by one as the earlier ones finish, so one learner's ten infinite loops wait behind each other,
not in front of everyone else's submissions.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from judge import source_text, verdicts
from judge.evidence import Cost
from judge.report import Report
from kombu.exceptions import OperationalError

from webplatform.core import broker
from webplatform.core.queues import BACKGROUND, enqueue, grading_queues, queue_for

from . import events
from .models import LANE_OF_KIND, Submission, Sweep, Worker
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
        _dispatch(user_id=user.pk, lane=submission.lane)
    return submission


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


def _publish_on_commit(submission_id: int, version, lane: str, countdown: float = 0, resumed: bool = False) -> None:
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


def _dispatch(*, user_id: int, lane: str) -> int:
    """Publishes (once committed) the learner's waiting gradings of ``lane``, oldest first, while
    fewer than ``PER_LEARNER_IN_FLIGHT`` are in flight (background work is never held). Called in
    the transaction of every change that adds a grading or ends one; the learner's row is locked
    so that two of them at once cannot both take the last place (SQLite's IMMEDIATE transactions
    already serialise writers). Returns how many it published."""
    cap = _grading_settings()["PER_LEARNER_IN_FLIGHT"]
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
            _publish_on_commit(submission.pk, submission.version, lane)
            published += 1
    return published


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
            _announce({(user_id, version_id)})
            _dispatch(user_id=user_id, lane=lane)
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
            _dispatch(user_id=user.pk, lane=lane)
            events.announce(submission_id)
    return bool(updated)


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
    told, the grading enqueued once committed, in the background lane (nobody waits for it
    live, and however many there are, no learner waits behind them)."""
    with transaction.atomic():
        now = timezone.now()
        updated = Submission.objects.filter(extra, pk=submission.pk, status=Status.DONE).update(
            status=Status.QUEUED,
            version=version,
            verdict="",
            message="",
            report=None,
            attempts=0,
            task_id="",
            lane=BACKGROUND,
            enqueued_at=now,
            published_at=now,
            started_at=None,
            finished_at=None,
            claimed_by="",
            heartbeat_at=None,
            grading_time_s=None,
            **dict.fromkeys(METRIC_FIELDS),
        )
        if updated:
            _announce({(submission.user_id, submission.version_id), (submission.user_id, version.pk)})
            _publish_on_commit(submission.pk, version, BACKGROUND)
    return bool(updated)


@transaction.atomic
def delete_submissions(*, submission_ids) -> int:
    """Deletes these submissions (an admin's clean-up), telling the summaries of submissions."""
    doomed = Submission.objects.filter(pk__in=list(submission_ids))
    pairs = set(doomed.values_list("user_id", "version_id"))
    count, _ = doomed.delete()
    _announce(pairs)
    return count


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
    config = _grading_settings()
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
            _dispatch(user_id=submission.user_id, lane=submission.lane)
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
        _publish_on_commit(submission_id, submission.version, submission.lane, countdown=delay, resumed=worker_gone)
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
    republished: list[int] = field(default_factory=list)  # queued, but their message was lost
    released: list[int] = field(default_factory=list)  # were running on a worker that went away
    failed: list[int] = field(default_factory=list)  # released, out of attempts: internal_error
    dispatched: int = 0  # held by the per-learner cap, and now published
    broker: str = "ok"  # or why it could not be read (then nothing is republished)
    claims_checked: bool = True  # False after a gap: the heartbeats get one period to catch up


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
    config = _grading_settings()
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
    for user_id, lane in _held_with_room():
        with transaction.atomic():
            result.dispatched += _dispatch(user_id=user_id, lane=lane)
    Sweep.objects.filter(pk=1).update(
        republished=F("republished") + len(result.republished),
        released=F("released") + len(result.released) + len(result.failed),
        dispatched=F("dispatched") + result.dispatched,
    )
    return result


def _held_with_room() -> set[tuple[int, str]]:
    """(learner, lane) pairs with gradings held by the cap although fewer are in flight: normally
    none (each finished grading publishes the next), unless a worker died between the two."""
    cap = _grading_settings()["PER_LEARNER_IN_FLIGHT"]
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
