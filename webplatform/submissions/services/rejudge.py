"""Graded submissions put back in the queue, to be graded again against a problem's current or
new version, or deleted by an admin; the summaries of submissions are told either way."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from webplatform.core.queues import BACKGROUND

from ..models import Submission
from .claims import announce_verdicts
from .dispatch import publish_on_commit
from .figures import METRIC_FIELDS

Status = Submission.Status


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
            announce_verdicts({(submission.user_id, submission.version_id), (submission.user_id, version.pk)})
            publish_on_commit(submission.pk, version, BACKGROUND)
    return bool(updated)


@transaction.atomic
def delete_submissions(*, submission_ids) -> int:
    """Deletes these submissions (an admin's clean-up), telling the summaries of submissions."""
    doomed = Submission.objects.filter(pk__in=list(submission_ids))
    pairs = set(doomed.values_list("user_id", "version_id"))
    count, _ = doomed.delete()
    announce_verdicts(pairs)
    return count


def requeue_submission(*, submission_id: int, version) -> bool:
    """done -> queued against ``version`` (a rejudge after a new version was published); then it
    is graded like any submission, through the same claim and completion. Only a finished
    submission of the version's problem on another version moves, so repeating it does nothing."""
    submission = Submission.objects.filter(pk=submission_id, problem_id=version.problem_id).first()
    if submission is None:
        return False
    return _requeue(submission, version, ~Q(version=version))
