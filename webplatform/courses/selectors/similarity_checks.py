"""Similarity checks: what a check compares (each learner's submissions made for the assignment),
and the checks and pairs it found."""

from __future__ import annotations

from collections import defaultdict

from django.http import Http404

from judge.data import verdicts
from webplatform.catalog.models import Problem
from webplatform.leaderboard.selectors import counted_submissions
from webplatform.submissions.models import Submission

from ..models import Assignment, SimilarityCheck, SimilarPair
from .cells import made_for
from .problems import problems_of


def similarity_sources(assignment: Assignment) -> dict[Problem, dict[int, dict[int, str]]]:
    """What a similarity check compares: for each problem of the assignment, each learner's latest
    accepted and latest submission made for it (``made_for``: while it was open and they were in
    the course; {learner id: {submission id: source}}; one submission when they are the same)."""
    problems = problems_of(assignment)
    rows = (
        made_for(assignment, counted_submissions())
        .order_by("created_at", "id")
        .values_list("id", "user_id", "problem_id", "verdict")
    )
    chosen: dict[tuple[int, int], dict[str, int]] = defaultdict(dict)
    for submission_id, user_id, problem_id, verdict in rows.iterator(chunk_size=2000):
        mine = chosen[problem_id, user_id]
        mine["last"] = submission_id
        if verdict == verdicts.ACCEPTED:
            mine["accepted"] = submission_id
    ids = {sid for mine in chosen.values() for sid in mine.values()}
    sources = dict(Submission.objects.filter(pk__in=ids).values_list("id", "source"))
    found: dict[Problem, dict[int, dict[int, str]]] = {p: {} for p in problems}
    by_pk = {p.pk: p for p in problems}
    for (problem_id, user_id), mine in chosen.items():
        found[by_pk[problem_id]][user_id] = {sid: sources[sid] for sid in dict.fromkeys(mine.values())}
    return found


def latest_similarity_check(assignment: Assignment) -> SimilarityCheck | None:
    return assignment.similarity_checks.first()


def shown_similarity_check(assignment: Assignment) -> SimilarityCheck | None:
    """The latest finished check: its pairs stay shown while a newer one runs."""
    return assignment.similarity_checks.filter(status=SimilarityCheck.Status.DONE).first()


def similar_pairs(check: SimilarityCheck) -> list[SimilarPair]:
    return list(check.pairs.select_related("problem", "first__user", "second__user"))


def similar_pair(*, assignment: Assignment, pair_id: int) -> SimilarPair:
    found = (
        SimilarPair.objects.select_related("problem__current_version", "first__user", "second__user")
        .filter(pk=pair_id, run__assignment=assignment)
        .first()
    )
    if found is None:
        raise Http404("no such pair")
    return found
