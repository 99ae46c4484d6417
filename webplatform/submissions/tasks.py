"""Celery tasks: grade one submission; sweep what lost messages and dead workers left behind.

Tasks take ids and re-read the database: a message carries no state, so a duplicate or late
message is harmless (the guarded claim lets only one through). Each database step of a grading
waits for a database that went away instead of failing the task (a failed task's message is
acknowledged and gone): the claim is tried again, and a verdict that could not be stored is
stored when the database is back, never graded twice. While it grades, the worker beats on its
claim; a cancelled grading stops at the next beat."""

from __future__ import annotations

import logging
import os

from celery import shared_task
from celery.exceptions import Reject
from celery.signals import worker_init, worker_ready
from django.conf import settings
from django.db import connection
from django.utils import timezone

from judge import grade
from judge.data import verdicts
from judge.data.report import Report
from judge.grading.inspecting import inspect
from webplatform.catalog.package_cache import problem_for_version
from webplatform.core.database import DatabaseUnavailable, is_unavailable, patiently
from webplatform.core.heartbeat import Heartbeat
from webplatform.core.worker import close_worker_runner, worker_runner

from . import services
from .models import Submission

logger = logging.getLogger(__name__)
_reported_layers: set[str] = set()  # node names whose sandbox layers this process has recorded
_booted_at = None  # when this worker started: claims of its node older than this are its past life's


def _patiently(step, what: str):
    """A database step of a grading, waited for while the database is away (see
    ``core.database``). After ``DATABASE_PATIENCE_S`` the message goes back to the broker,
    unacknowledged; the database's own record then decides what happens to it."""
    try:
        return patiently(step, what=what, patience_s=settings.GRADING["DATABASE_PATIENCE_S"])
    except DatabaseUnavailable as exc:
        raise Reject(str(exc), requeue=True) from exc


@shared_task(name=services.GRADE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def grade_submission(self, submission_id: int) -> str:
    node = self.request.hostname or "worker"
    submission = _patiently(
        lambda: services.claim_submission(
            submission_id=submission_id, task_id=self.request.id, worker=f"{node}#{os.getpid()}"
        ),
        f"claiming submission {submission_id}",
    )
    if submission is None:
        return "skipped"  # done, cancelled, or held by another worker: a duplicate message
    attempt = submission.attempts

    def fail(message: str, report: Report | None = None) -> str:
        return _patiently(
            lambda: services.record_grading_failure(
                submission_id=submission_id, attempt=attempt, message=message, report=report
            ),
            f"recording a failure of submission {submission_id}",
        )

    if attempt > settings.GRADING["MAX_ATTEMPTS"]:
        # Only a message whose workers kept dying gets here: stop instead of looping.
        return fail("the worker died while grading it")
    # Beating from the claim on: a pool process's first grading starts its runner (a zygote that
    # imports JAX and probes the sandbox), seconds under load; without beats meanwhile the sweep
    # took the claim for a dead worker's and graded the submission a second time.
    beat = Heartbeat(
        lambda: services.heartbeat(submission_id=submission_id, attempt=attempt),
        every_s=settings.GRADING["HEARTBEAT_EVERY_S"],
        on_lost=close_worker_runner,
    )
    try:
        with beat:
            runner = worker_runner()
            _report_layers(node, runner)
            problem = problem_for_version(submission.version)
            recorded = submission.kind == Submission.Kind.SUBMIT
            if submission.kind == Submission.Kind.INSPECT:  # what the code saves, on a sample: no verdict
                report = inspect(problem, submission.source, runner)
            else:
                # A recorded submission is also measured (FLOPs, peak memory) for the leaderboard;
                # a "Run samples" is a quick check and skips that.
                report = grade(
                    problem,
                    submission.source,
                    samples_only=not recorded,
                    fwd_bwd=True,
                    measure_cost=recorded,
                    runner=runner,
                    scope=f"user:{submission.user_id}",  # one learner's compiled programs, kept for their next grading
                )
    except Exception as exc:  # a failure of the judge, never the submission's (its code runs in a child)
        if beat.lost:
            return "stopped"  # cancelled (or released) while grading: the child was killed on purpose
        logger.exception("grading submission %s failed", submission_id)
        return fail(f"{type(exc).__name__}: {exc}")
    if beat.lost:
        return "stopped"
    # One line per grading that ran to its end (the burst benchmark counts them: never two).
    logger.info("graded submission %s, attempt %s: %s", submission_id, attempt, report.verdict or "inspected")
    if report.verdict == verdicts.INTERNAL_ERROR:
        return fail(report.message, report)
    stored = _patiently(
        lambda: services.complete_submission(submission_id=submission_id, attempt=attempt, report=report),
        f"storing the verdict of submission {submission_id}",
    )
    return (report.verdict or "inspected") if stored else "stale"


def _report_layers(node: str, runner) -> None:
    """Records, once per process, which sandbox layers this worker's grading process has."""
    if node in _reported_layers or not hasattr(runner, "layers"):
        return
    try:
        services.record_worker(name=node, layers=runner.layers())
        _reported_layers.add(node)
    except Exception as exc:  # noqa: BLE001 - the metrics must never stop a grading
        logger.warning("could not record the sandbox layers of %s: %s", node, exc)


@shared_task(name="submissions.sweep", ignore_result=True)
def sweep() -> dict:
    try:
        result = services.sweep()
    except Exception as exc:
        if not is_unavailable(exc):
            raise
        logger.warning("sweep skipped: the database is unavailable (%s)", exc)
        return {"skipped": str(exc)}
    if result.republished or result.released or result.failed or result.dispatched:
        logger.warning(
            "sweep: republished %s, released %s, failed %s, dispatched %s",
            result.republished,
            result.released,
            result.failed,
            result.dispatched,
        )
    return result.__dict__


@worker_init.connect
def _note_boot(**_):
    global _booted_at
    _booted_at = timezone.now()


@worker_ready.connect
def _take_over_from_past_life(sender, **_):
    """A worker restarted under the same node name (the launcher, compose's restart policy)
    releases at once what its previous life was grading: that process is gone."""
    node = sender.hostname
    try:
        queues = ",".join(sorted(q.name for q in sender.task_consumer.queues)) if sender.task_consumer else ""
        services.record_worker(name=node, queues=queues, started_at=_booted_at or timezone.now())
        released = services.release_claims_of_worker(node=node, booted_at=_booted_at or timezone.now())
        if released:
            logger.warning(
                "released %s submission(s) claimed by this worker's previous run: %s", len(released), released
            )
    except Exception as exc:  # noqa: BLE001 - the heartbeat rule will release them instead
        logger.warning("could not release the claims of %s's previous run: %s", node, exc)
    finally:
        connection.close()
