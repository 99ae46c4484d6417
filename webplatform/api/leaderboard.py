"""/api/v1/leaderboard: the global ranking and a problem's, read from the same cached boards as
the pages (``leaderboard.selectors``), 50 rows a page as there. Public, as the pages are: a
ranking names learners and their figures, never their code."""

from __future__ import annotations

import math
from typing import Literal

from django.http import HttpRequest
from ninja import Path, Query, Router, Schema
from pydantic import Field

from webplatform.leaderboard import periods, presenters, selectors
from webplatform.leaderboard.metrics import RECORDED, ranking_for

from .auth import OPTIONAL_TOKEN, bearer_or_anonymous
from .errors import Error, missing
from .schemas import GlobalBoard, ProblemBoard, ProblemPath

router = Router(tags=["leaderboard"])
PAGE = Field(1, ge=1, le=10**6, description="50 rows a page; past the last page the rows are empty")


class GlobalQuery(Schema):
    period: Literal[tuple(periods.PERIODS)] = Field(periods.DEFAULT, description="problems first solved in it")
    tag: str | None = Field(None, max_length=64, pattern=r"^[^\x00]*$", description="only problems with this tag")
    page: int = PAGE


class PageQuery(Schema):
    page: int = PAGE


def _page(rows: list, page: int) -> tuple[list, int]:
    """One page of a ranking and how many pages it has."""
    size = selectors.PAGE_SIZE
    return rows[(page - 1) * size : page * size], max(1, math.ceil(len(rows) / size))


def _standing(row, names) -> dict:
    return {
        "rank": row.rank,
        "username": names.get(row.user_id, ""),
        "solved": row.solved,
        "penalty_min": row.penalty,
        "last_accepted_at": row.last_accepted,
    }


def _entry(row, names) -> dict:
    return {
        "rank": row.rank,
        "username": names.get(row.user_id, ""),
        "created_at": row.created_at,
        **{metric.field: row.value(metric) for metric in RECORDED},
    }


@router.get(
    "/leaderboard",
    response={200: GlobalBoard, 401: Error, 422: Error},
    auth=bearer_or_anonymous,
    openapi_extra=OPTIONAL_TOKEN,
    summary="The global ranking: problems solved, then penalty",
)
def global_ranking(request: HttpRequest, query: Query[GlobalQuery]):
    board = selectors.global_board(since=periods.start_of(query.period), tag=query.tag or None)
    rows, pages = _page(board.standings, query.page)
    mine = board.standing_of(request.auth)
    names = selectors.usernames([row.user_id for row in rows] + ([mine.user_id] if mine else []))
    return {
        "period": query.period,
        "tag": query.tag or None,
        "page": query.page,
        "pages": pages,
        "ranked": len(board.standings),
        "standings": [_standing(row, names) for row in rows],
        "you": _standing(mine, names) if mine else None,
    }


@router.get(
    "/leaderboard/problems/{slug}",
    response={200: ProblemBoard, 401: Error, 404: Error, 422: Error},
    auth=bearer_or_anonymous,
    openapi_extra=OPTIONAL_TOKEN,
    summary="A problem's ranking by its metrics, and its memory/recompute Pareto front",
)
def problem_ranking(request: HttpRequest, path: Path[ProblemPath], query: Query[PageQuery]):
    with missing(f"There is no published problem {path.slug!r}: GET /api/v1/problems lists them."):
        problem = selectors.ranked_problem(slug=path.slug)
    board = selectors.problem_board(problem)
    rows, pages = _page(board.standings, query.page)
    mine = board.standing_of(request.auth)
    names = selectors.usernames([row.user_id for row in rows] + ([mine.user_id] if mine else []))
    return {
        "problem": problem.slug,
        "title": problem.current_version.title,
        "ranked_by": [metric.field for metric in ranking_for(problem)],
        "metrics": [{"field": m.field, "label": m.label, "unit": m.unit, "meaning": m.meaning} for m in RECORDED],
        "page": query.page,
        "pages": pages,
        "ranked": len(board.standings),
        "entries": [_entry(row, names) for row in rows],
        "you": _entry(mine, names) if mine else None,
        "pareto_front": [
            {"flops": p.flops, "residual_bytes": p.residual_bytes, "learners": p.learners}
            for p in presenters.chart(problem).front
        ],
    }
