"""Celery tasks of the authoring pages: validate a draft; requeue the submissions of a rejudge.

Both take ids and re-read the database. Validation claims its run with a guarded update, like
grading claims a submission, so a duplicate message does nothing; a rejudge only requeues
submissions through the submissions app's guarded transition, so running it twice is harmless.
"""

from __future__ import annotations

import logging

from celery import shared_task

from judge import PackageError, Report
from judge.validate import package_errors, run_step, steps
from webplatform.catalog.package_cache import problem_for_files
from webplatform.core.worker import worker_runner

from . import services

logger = logging.getLogger(__name__)


class _Stale(Exception):
    """Another attempt owns the run now (this worker was presumed dead and it was taken over)."""


@shared_task(name=services.VALIDATE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def validate_draft(self, run_id: int) -> str:
    claimed = services.claim_validation(run_id=run_id, task_id=self.request.id)
    if claimed is None:
        return "skipped"  # done, or held by another worker: a duplicate message
    run, files, content_hash = claimed
    try:
        problem = problem_for_files(files=files, slug=run.draft.slug, content_hash=content_hash)
        errors = _grade_steps(problem, run_id, run.attempts)
    except _Stale:
        return "stale"
    except PackageError as exc:
        errors = [str(exc)]
    except Exception as exc:  # the judge failed, not the package: say so, the author may run it again
        logger.exception("validating run %s failed", run_id)
        errors = [f"the judge failed while validating ({type(exc).__name__}: {exc}); validate again"]
    services.complete_validation(run_id=run_id, attempt=run.attempts, errors=errors)
    return "done"


def _grade_steps(problem, run_id: int, attempt: int) -> list[str]:
    """Grades the reference, then each packaged submission, storing each row as it comes."""
    todo = steps(problem)
    rows: list[dict] = []
    for step in todo:
        row, report = run_step(problem, step, runner=worker_runner())
        rows.append(
            {
                "submission": row.submission,
                "expected": row.expected,
                "actual": row.actual,
                "message": row.message,
                "ok": row.ok,
            }
        )
        signature = _signature(report) if len(rows) == 1 else {}
        if not services.record_validation_progress(
            run_id=run_id, attempt=attempt, total=len(todo), rows=rows, **signature
        ):
            raise _Stale()
        if len(rows) == 1 and not row.ok:
            # Every other verdict is measured against the reference: nothing to learn from them.
            return [f"the reference solution must be accepted on its own cases; it got {row.actual}: {row.message}"]
    return package_errors(problem)


def _signature(report: Report) -> dict:
    """The reference's residual signature: what it saves, and the policies of its checkpoints."""
    found = report.structure.checkpoints if report.structure is not None else []
    return {
        "reference_residuals": [r.to_dict() for r in report.reference_residuals],
        "reference_checkpoints": [c.to_dict() for c in found],
    }


@shared_task(name=services.REJUDGE_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def rejudge_submissions(rejudge_id: int) -> int:
    return services.requeue_rejudge(rejudge_id=rejudge_id)
