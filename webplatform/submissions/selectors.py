"""Reads of submissions. Only the author may read a submission (and its code)."""
from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404
from judge import verdicts

from .models import Submission


def get_own_submission(*, user, submission_id: int) -> Submission:
    """The user's own submission; someone else's is a 404, as if it did not exist."""
    submission = (Submission.objects.select_related("problem", "version")
                  .filter(pk=submission_id, user_id=user.pk).first()) if user.is_authenticated else None
    if submission is None:
        raise Http404("no such submission")
    return submission


def user_history(*, user, problem=None, problem_slug: str | None = None, kind: str | None = None) -> QuerySet[Submission]:
    # The version's package files (every file, as JSON) are the workers' business, not a list's.
    submissions = Submission.objects.filter(user_id=user.pk).select_related("problem", "version") \
        .defer("source", "report", "version__files")
    if problem is not None:
        submissions = submissions.filter(problem=problem)
    if problem_slug:
        submissions = submissions.filter(problem__slug=problem_slug)
    if kind:
        submissions = submissions.filter(kind=kind)
    return submissions.order_by("-created_at", "-id")


def recent_attempts(*, user, problem, limit: int = 10) -> list[Submission]:
    """The learner's latest attempts at one problem, with only what a short list shows (no joins:
    the problem page lists them on every view)."""
    if not user.is_authenticated:
        return []
    return list(Submission.objects.filter(user_id=user.pk, problem=problem)
                .only("id", "kind", "status", "verdict", "created_at").order_by("-created_at", "-id")[:limit])


def solved_problem_ids(*, user) -> set[int]:
    if not user.is_authenticated:
        return set()
    return set(Submission.objects.filter(user=user, kind=Submission.Kind.SUBMIT, verdict=verdicts.ACCEPTED)
               .order_by().values_list("problem_id", flat=True).distinct())


def has_solved(*, user, problem) -> bool:
    if not user.is_authenticated:
        return False
    return problem.submissions.filter(user=user, kind="submit", verdict="accepted").exists()
