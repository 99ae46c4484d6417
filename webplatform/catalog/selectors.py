"""Reads of the catalog."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404

from webplatform.core.freshness import cached

from .models import Problem, ProblemVersion, Tag


def active_problems(*, tag: str | None = None, difficulty: str | None = None):
    """Problems still in the bank (a retired one is hidden), filtered by tag and difficulty."""
    problems = Problem.objects.filter(is_active=True)
    if tag:
        problems = problems.filter(tags__name=tag)
    if difficulty:
        problems = problems.filter(difficulty=difficulty)
    return problems


def tags_in_use() -> list[str]:
    """Names of the tags of active problems."""
    return cached("tags-in-use", lambda: list(
        Tag.objects.filter(problems__is_active=True).distinct().order_by("name").values_list("name", flat=True)))


def get_problem(*, slug: str) -> Problem:
    """The active problem with this slug and its current version, or 404."""
    # The version's package files are for the workers; loading them (every file of the package,
    # as JSON) on each page view only cost time.
    return get_object_or_404(
        Problem.objects.select_related("current_version").defer("current_version__files"),
        slug=slug, is_active=True, current_version__isnull=False)


def version_opened(*, problem: Problem, number: str | int | None) -> ProblemVersion | None:
    """The version a learner's page showed (its number travels with run and submit), or None
    when the request names none; ``ValidationError`` for a number the problem has no version of.
    Every version of a published problem was published."""
    if number is None or number == "":
        return None
    # PositiveIntegerField: a number past its range names no version (and must not reach the database).
    known = str(number).isdigit() and int(number) < 2**31
    version = problem.versions.filter(number=int(number)).first() if known else None
    if version is None:
        raise ValidationError(f"this problem has no version {number}", code="unknown_version")
    return version
