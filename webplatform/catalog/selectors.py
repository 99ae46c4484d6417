"""Reads of the catalog."""
from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from judge import verdicts

from webplatform.accounts.selectors import is_instructor
from webplatform.leaderboard.selectors import submission_counts
from webplatform.submissions.freshness import cached
from webplatform.submissions.models import Submission

from .models import Problem, ProblemVersion, Tag


@dataclass(frozen=True, slots=True)
class ListedProblem:
    """A row of the problem list: plain values, cached and shared between requests."""
    pk: int
    slug: str
    title: str
    difficulty: str
    tags: tuple[str, ...]
    graded_count: int
    accepted_count: int

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted submissions over graded ones (``None`` before any was graded)."""
        return self.accepted_count / self.graded_count if self.graded_count else None


def problem_list(*, tag: str | None = None, difficulty: str | None = None) -> list[ListedProblem]:
    """Active problems filtered by tag and difficulty, with their submission counts. The same for
    everyone and changed only by a verdict or a problem, so cached under the grading state
    (``submissions.freshness``); ``solved_problem_ids`` is the viewer's part."""
    def compute() -> list[ListedProblem]:
        problems = Problem.objects.filter(is_active=True).prefetch_related("tags").order_by("title")
        if tag:
            problems = problems.filter(tags__name=tag)
        if difficulty:
            problems = problems.filter(difficulty=difficulty)
        counts = submission_counts()
        return [ListedProblem(p.pk, p.slug, p.title, p.difficulty, tuple(t.name for t in p.tags.all()),
                              *counts.get(p.pk, (0, 0))) for p in problems]

    return cached(f"problem-list:{tag}:{difficulty}", compute)


def solved_problem_ids(*, user) -> set[int]:
    if not user.is_authenticated:
        return set()
    return set(Submission.objects.filter(user=user, kind=Submission.Kind.SUBMIT, verdict=verdicts.ACCEPTED)
               .order_by().values_list("problem_id", flat=True).distinct())


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


def has_solved(*, user, problem: Problem) -> bool:
    if not user.is_authenticated:
        return False
    return problem.submissions.filter(user=user, kind="submit", verdict="accepted").exists()


def can_see_solution(*, user, problem: Problem, solved: bool | None = None) -> bool:
    """The reference and the explanation: for those who solved the problem, and instructors.
    ``solved``: ``has_solved`` when the caller has it already."""
    if solved is None:
        solved = has_solved(user=user, problem=problem)
    return solved or is_instructor(user)
