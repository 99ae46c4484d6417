"""Celery tasks: grade one submission; sweep the ones left behind.

Tasks take ids and re-read the database: a message carries no state, so a duplicate or late
message is harmless (the guarded claim lets only one through)."""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from judge import grade, verdicts

from webplatform.catalog.package_cache import problem_for_version
from webplatform.core.worker import worker_runner

from . import services
from .models import Submission

logger = logging.getLogger(__name__)


@shared_task(name=services.GRADE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True)
def grade_submission(self, submission_id: int) -> str:
    submission = services.claim_submission(submission_id=submission_id, task_id=self.request.id)
    if submission is None:
        return "skipped"  # done, or held by another worker: a duplicate message
    attempt = submission.attempts
    if attempt > settings.GRADING["MAX_ATTEMPTS"]:
        # Only a message whose workers kept dying gets here: stop instead of looping.
        return services.record_grading_failure(
            submission_id=submission_id, attempt=attempt, message="the worker died while grading it")
    try:
        problem = problem_for_version(submission.version)
        recorded = submission.kind == Submission.Kind.SUBMIT
        # A recorded submission is also measured (FLOPs, peak memory) for the leaderboard; a
        # "Run samples" is a quick check and skips that.
        report = grade(problem, submission.source, samples_only=not recorded, fwd_bwd=True,
                       measure_cost=recorded, runner=worker_runner())
    except Exception as exc:  # a failure of the judge, never the submission's (its code runs in a child)
        logger.exception("grading submission %s failed", submission_id)
        return services.record_grading_failure(
            submission_id=submission_id, attempt=attempt, message=f"{type(exc).__name__}: {exc}")
    if report.verdict == verdicts.INTERNAL_ERROR:
        return services.record_grading_failure(
            submission_id=submission_id, attempt=attempt, message=report.message, report=report.to_dict())
    services.complete_submission(submission_id=submission_id, attempt=attempt, report=report.to_dict())
    return report.verdict


@shared_task(name="submissions.sweep_stale_submissions", ignore_result=True)
def sweep_stale_submissions() -> dict:
    result = services.sweep_stale_submissions()
    if result.requeued or result.restarted or result.failed:
        logger.warning("sweep: requeued %s, restarted %s, failed %s", result.requeued, result.restarted, result.failed)
    return result.__dict__
