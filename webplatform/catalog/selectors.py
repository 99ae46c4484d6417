"""Reads of the catalog."""

from __future__ import annotations

import copy

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import Http404

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
    is a 404 to everyone outside it, as if it did not exist.

    Read on every view of a problem page, so the row is remembered per grading state
    (``core.freshness``, whose stamp moves with any save of a problem: a new current version, a
    problem retired, renamed or made public) and who may open it is decided here, as
    ``visible_to`` would: building that query was a third of the page's CPU (`make bench`). Each
    caller gets its own copy, so that nothing it sets on its problem reaches another request."""
    problem = _published().get(slug) or _load_published(slug)
    if problem is None or not _may_open(user, problem):
        raise Http404(f"No {Problem._meta.object_name} matches the given query.")
    return _own_copy(problem)


def get_public_problem(*, slug: str) -> Problem:
    """The public active problem with this slug (listed, ranked, open to everyone) and its current
    version, or 404; remembered as ``get_problem``'s."""
    problem = _published().get(slug) or _load_published(slug)
    if problem is None or not problem.is_public:
        raise Http404(f"No {Problem._meta.object_name} matches the given query.")
    return _own_copy(problem)


def _own_copy(problem: Problem) -> Problem:
    mine = copy.copy(problem)
    mine.current_version = copy.copy(problem.current_version)
    return mine


# How many problems one grading state remembers: more than any bank, few enough that made-up
# slugs cannot fill the memory (slugs that name no problem are not remembered at all).
_PUBLISHED_MAX = 1000


def _published() -> dict[str, Problem]:
    """{slug: active problem with a current version} as read under the current grading state,
    filled as pages ask (``_load_published``); a new state starts an empty table."""
    return cached("published-problems", dict)


def _load_published(slug: str) -> Problem | None:
    # The version's package files are for the workers; loading them (every file of the package,
    # as JSON) on each page view only cost time.
    problem = (
        Problem.objects.select_related("current_version")
        .defer("current_version__files")
        .filter(is_active=True, current_version__isnull=False, slug=slug)
        .first()
    )
    table = _published()
    if problem is not None and len(table) < _PUBLISHED_MAX:
        table[slug] = problem
    return problem


def _may_open(user, problem: Problem) -> bool:
    """``visible_to(user)`` for one active problem: public ones to all, one kept for a group to
    its members (read now: joining or leaving a course moves no stamp), all to staff."""
    if getattr(user, "is_staff", False) or problem.audience_id is None:
        return True
    if user is None or not user.is_authenticated:
        return False
    return user.groups.filter(pk=problem.audience_id).exists()


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
