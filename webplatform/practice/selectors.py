"""Reads of the learner's pages: the catalog's problems with the figures and marks of the layers
above it."""
from __future__ import annotations

from dataclasses import dataclass

from webplatform.accounts.selectors import is_instructor
from webplatform.catalog.models import Problem
from webplatform.catalog.selectors import active_problems
from webplatform.core.freshness import cached
from webplatform.leaderboard.selectors import submission_counts
from webplatform.submissions.selectors import has_solved


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
    (``core.freshness``); ``submissions.selectors.solved_problem_ids`` is the viewer's part."""
    def compute() -> list[ListedProblem]:
        problems = active_problems(tag=tag, difficulty=difficulty).prefetch_related("tags").order_by("title")
        counts = submission_counts()
        return [ListedProblem(p.pk, p.slug, p.title, p.difficulty, tuple(t.name for t in p.tags.all()),
                              *counts.get(p.pk, (0, 0))) for p in problems]

    return cached(f"problem-list:{tag}:{difficulty}", compute)


def can_see_solution(*, user, problem: Problem, solved: bool | None = None) -> bool:
    """The reference and the explanation: for those who solved the problem, and instructors.
    ``solved``: ``has_solved`` when the caller has it already."""
    if solved is None:
        solved = has_solved(user=user, problem=problem)
    return solved or is_instructor(user)
