"""Reads of the catalog."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.shortcuts import get_object_or_404

from webplatform.core.freshness import cached
from webplatform.core.params import parse_int

from .models import PUBLIC, Problem, ProblemVersion, Tag


def active_problems(*, tag: str | None = None, difficulty: str | None = None):
    """Public problems still in the bank (a retired one is hidden, one kept for a course is not
    listed), filtered by tag and difficulty."""
    problems = Problem.objects.filter(PUBLIC)
    if tag:
        problems = problems.filter(tags__name=tag)
    if difficulty:
        problems = problems.filter(difficulty=difficulty)
    return problems


def tags_in_use() -> list[str]:
    """Names of the tags of active problems."""
    return cached(
        "tags-in-use",
        lambda: list(
            Tag.objects.filter(problems__is_active=True, problems__audience__isnull=True)
            .distinct()
            .order_by("name")
            .values_list("name", flat=True)
        ),
    )


def visible_to(user) -> Q:
    """The active problems ``user`` may open: public ones, those kept for a group they belong to
    (a course's), and all of them for staff."""
    if getattr(user, "is_staff", False):
        return Q(is_active=True)
    if user is None or not user.is_authenticated:
        return PUBLIC
    return PUBLIC | Q(is_active=True, audience__in=user.groups.all())


def get_problem(*, slug: str, user) -> Problem:
    """The active problem with this slug and its current version, or 404; one kept for a course
    is a 404 to everyone outside it, as if it did not exist."""
    # The version's package files are for the workers; loading them (every file of the package,
    # as JSON) on each page view only cost time.
    return get_object_or_404(
        Problem.objects.select_related("current_version").defer("current_version__files").filter(visible_to(user)),
        slug=slug,
        current_version__isnull=False,
    )


def version_opened(*, problem: Problem, number: str | int | None) -> ProblemVersion | None:
    """The version a learner's page showed (its number travels with run and submit), or None
    when the request names none; ``ValidationError`` for a number the problem has no version of.
    Every version of a published problem was published."""
    if number is None or number == "":
        return None
    # PositiveIntegerField: a number past its range names no version (and must not reach the database).
    known = parse_int(str(number), minimum=1, maximum=2**31 - 1)
    version = problem.versions.filter(number=known).first() if known is not None else None
    if version is None:
        raise ValidationError(f"this problem has no version {number}", code="unknown_version")
    return version
