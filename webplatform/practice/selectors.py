"""Reads of the learner's pages: the catalog's problems with the figures and marks of the layers
above it."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from webplatform.accounts.selectors import is_instructor
from webplatform.catalog import track
from webplatform.catalog.models import Problem
from webplatform.catalog.selectors import active_problems, visible_to
from webplatform.core.freshness import cached
from webplatform.leaderboard.selectors import submission_counts
from webplatform.submissions.selectors import has_solved

MAX_SEARCH_WORDS = 8


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
    section: str = track.OFF_TRACK  # its section of the track (``track.OFF_TRACK`` when not on it)

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted submissions over graded ones (``None`` before any was graded)."""
        return self.accepted_count / self.graded_count if self.graded_count else None


def search_words(text: str | None) -> tuple[str, ...]:
    """The words of a search, lower-cased, at most ``MAX_SEARCH_WORDS``."""
    return tuple(dict.fromkeys((text or "").casefold().split()))[:MAX_SEARCH_WORDS]


def _matching(problems, words):
    """Problems whose title, a tag or the current statement holds every word."""
    for word in words:
        problems = problems.filter(
            Q(title__icontains=word) | Q(tags__name__icontains=word) | Q(current_version__statement__icontains=word)
        )
    return problems.distinct() if words else problems


def problem_list(
    *, tag: str | None = None, difficulty: str | None = None, search: str | None = None
) -> list[ListedProblem]:
    """Active problems filtered by tag, difficulty and the words of a search (over titles, tags
    and statements), with their submission counts, in the track's order (``catalog.track``:
    section by section, then the problems off the track by title). The same for everyone and
    changed only by a verdict or a problem, so cached under the grading state
    (``core.freshness``); ``submissions.selectors.solved_problem_ids`` is the viewer's part."""
    words = search_words(search)

    def compute() -> list[ListedProblem]:
        problems = _matching(active_problems(tag=tag, difficulty=difficulty), words).prefetch_related("tags")
        counts = submission_counts()
        ordered = sorted(problems, key=lambda p: track.place_of(p.slug, p.title))
        return [
            ListedProblem(
                p.pk,
                p.slug,
                p.title,
                p.difficulty,
                tuple(t.name for t in p.tags.all()),
                *counts.get(p.pk, (0, 0)),
                section=track.section_of(p.slug),
            )
            for p in ordered
        ]

    return cached(f"problem-list:{tag}:{difficulty}:{' '.join(words)}", compute)


def first_problem() -> ListedProblem | None:
    """Where a newcomer starts: the first problem of the track that is listed."""
    return next(iter(problem_list()), None)


def next_problem(*, problem: Problem, user) -> Problem | None:
    """The problem after ``problem`` in the site's order among those ``user`` may open (the
    track's, then the rest by title), or None after the last."""
    key = track.place_of(problem.slug, problem.title)
    later = [
        p
        for p in Problem.objects.filter(visible_to(user)).exclude(pk=problem.pk).only("slug", "title")
        if track.place_of(p.slug, p.title) > key
    ]
    return min(later, key=lambda p: track.place_of(p.slug, p.title), default=None)


def can_see_solution(*, user, problem: Problem, solved: bool | None = None) -> bool:
    """The reference and the explanation: for those who solved the problem, and instructors.
    ``solved``: ``has_solved`` when the caller has it already."""
    if solved is None:
        solved = has_solved(user=user, problem=problem)
    return solved or is_instructor(user)
