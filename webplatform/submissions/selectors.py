"""Reads of submissions. Only the author may read a submission (and its code)."""
from __future__ import annotations

from django.db.models import Q, QuerySet
from django.http import Http404
from judge import verdicts
from judge.evidence import COST_REVISION

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


def figures_to_remeasure(*, slugs=(), device: str | None = None, again: bool = False) -> QuerySet[Submission]:
    """Graded recorded submissions whose stored cost figures were counted by rules corrected
    since (their report's cost has an older revision, or none), oldest first; with ``again``,
    every measured one. ``slugs``: of these problems only; ``device``: of problem versions graded
    on it."""
    found = Submission.objects.filter(kind=Submission.Kind.SUBMIT, status=Submission.Status.DONE,
                                      report__cost__flops__isnull=False)
    if not again:
        found = found.filter(Q(report__cost__revision__isnull=True) | Q(report__cost__revision__lt=COST_REVISION))
    if slugs:
        found = found.filter(problem__slug__in=list(slugs))
    if device is not None:
        found = found.filter(version__device=device)
    return found.select_related("user", "problem", "version").order_by("finished_at", "id")
