"""Reads of the catalog."""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from webplatform.accounts.selectors import is_instructor

from .models import Problem, ProblemVersion, Tag

_SUBMITTED = Q(submissions__kind="submit") & ~Q(submissions__verdict="")
_ACCEPTED = _SUBMITTED & Q(submissions__verdict="accepted")


def problem_list(*, user, tag: str | None = None, difficulty: str | None = None) -> QuerySet[Problem]:
    """Active problems with ``graded_count``, ``accepted_count`` and, for a signed-in user,
    ``solved`` (their own accepted submissions); filtered by tag and difficulty."""
    problems = Problem.objects.filter(is_active=True).prefetch_related("tags")
    if tag:
        problems = problems.filter(tags__name=tag)
    if difficulty:
        problems = problems.filter(difficulty=difficulty)
    annotations = {"graded_count": Count("submissions", filter=_SUBMITTED),
                   "accepted_count": Count("submissions", filter=_ACCEPTED)}
    if user.is_authenticated:
        annotations["solved_count"] = Count("submissions", filter=_ACCEPTED & Q(submissions__user=user))
    return problems.annotate(**annotations).order_by("title")


def acceptance_rate(problem: Problem) -> float | None:
    """Accepted submissions over graded ones (``None`` before any was graded)."""
    return problem.accepted_count / problem.graded_count if problem.graded_count else None


def tags_in_use() -> QuerySet[Tag]:
    return Tag.objects.filter(problems__is_active=True).distinct()


def get_problem(*, slug: str) -> Problem:
    """The active problem with this slug and its current version, or 404."""
    return get_object_or_404(
        Problem.objects.select_related("current_version").prefetch_related("tags"),
        slug=slug, is_active=True, current_version__isnull=False)


def version_opened(*, problem: Problem, number: str | None) -> ProblemVersion | None:
    """The version a learner's page showed (its number travels with run and submit), or None
    when the request names none. Every version of a published problem was published."""
    if not number or not str(number).isdigit():
        return None
    return problem.versions.filter(number=int(number)).first()


def has_solved(*, user, problem: Problem) -> bool:
    if not user.is_authenticated:
        return False
    return problem.submissions.filter(user=user, kind="submit", verdict="accepted").exists()


def can_see_solution(*, user, problem: Problem) -> bool:
    """The reference and the explanation: for those who solved the problem, and instructors."""
    return is_instructor(user) or has_solved(user=user, problem=problem)
