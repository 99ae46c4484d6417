"""Similarity checks of an assignment's submissions: requested, run on the background lane by the
task (``tasks.py``), and their pairs recorded."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from webplatform.core.queues import BACKGROUND, enqueue

from ..models import Assignment, SimilarityCheck, SimilarPair

SIMILARITY_TASK = "courses.similarity"  # routed to the background lane (settings.CELERY_TASK_ROUTES)


def request_similarity_check(*, assignment: Assignment, user) -> SimilarityCheck:
    """Queues a similarity check of the assignment's submissions on the background lane (an
    archived course's too: it only reads)."""
    with transaction.atomic():
        check = SimilarityCheck.objects.create(assignment=assignment, requested_by=user)
        transaction.on_commit(lambda: enqueue(SIMILARITY_TASK, check.pk, lane=BACKGROUND))
    return check


def claim_similarity_check(*, check_id: int) -> SimilarityCheck | None:
    """queued -> running; None for a check already done or failed (a duplicate message). A check
    left running (its worker died; the message comes back) runs again: it only replaces pairs."""
    Status = SimilarityCheck.Status
    if not SimilarityCheck.objects.filter(pk=check_id, status__in=[Status.QUEUED, Status.RUNNING]).update(
        status=Status.RUNNING
    ):
        return None
    return SimilarityCheck.objects.select_related("assignment__course").get(pk=check_id)


@transaction.atomic
def record_similarity(
    *, check: SimilarityCheck, pairs: list, submissions: int, seconds: float, excluded: list | None = None
) -> None:
    """The check's pairs ((problem id, ``similarity.Pair``), most similar first), replacing those
    of the assignment's earlier checks; ``excluded``: what it left out as given to everyone
    (``similarity.Given.to_dict``)."""
    SimilarityCheck.objects.filter(assignment=check.assignment_id).exclude(pk=check.pk).filter(
        status__in=[SimilarityCheck.Status.DONE, SimilarityCheck.Status.FAILED]
    ).delete()
    SimilarPair.objects.filter(run=check).delete()
    SimilarPair.objects.bulk_create(
        [
            SimilarPair(
                run=check,
                problem_id=problem_id,
                first_id=pair.first_submission,
                second_id=pair.second_submission,
                first_share=pair.first_share,
                second_share=pair.second_share,
                similarity=pair.similarity,
            )
            for problem_id, pair in pairs
        ]
    )
    SimilarityCheck.objects.filter(pk=check.pk).update(
        status=SimilarityCheck.Status.DONE,
        submissions=submissions,
        seconds=seconds,
        excluded=excluded or [],
        finished_at=timezone.now(),
    )


def fail_similarity_check(*, check: SimilarityCheck, error: str) -> None:
    SimilarityCheck.objects.filter(pk=check.pk).update(
        status=SimilarityCheck.Status.FAILED, error=error[:2000], finished_at=timezone.now()
    )


MAX_BASE_CHARS = 200_000  # a base file: a handout or a lecture's code, not a corpus


def set_similarity_base(
    *, assignment: Assignment, base: str, excludes_starter: bool = True, excludes_reference: bool = True
) -> Assignment:
    """What the assignment's similarity checks leave out as given to everyone: the instructor's
    base file (empty for none) and whether each problem's starter and reference are left out too.
    The next check follows it; an archived course's too (a check only reads)."""
    if len(base) > MAX_BASE_CHARS:
        raise ValidationError({"base": f"A base file is at most {MAX_BASE_CHARS:,} characters."})
    if "\x00" in base:
        raise ValidationError({"base": "A base file is text: it has a NUL character."})
    assignment.similarity_base = base.replace("\r\n", "\n")
    assignment.similarity_excludes_starter = excludes_starter
    assignment.similarity_excludes_reference = excludes_reference
    assignment.save(update_fields=["similarity_base", "similarity_excludes_starter", "similarity_excludes_reference"])
    return assignment
