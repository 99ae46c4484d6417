"""Thin views: read the rankings from ``selectors``, page them, render. All public (a ranking
names learners, never shows their code); the viewer's own row and point are marked when signed
in."""

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from webplatform.catalog.selectors import tags_in_use

from . import periods, presenters, selectors
from .metrics import SHOWN, ranking_for
from .rules import PENALTY_PER_REJECTION_MIN


def _page(request, board):
    return Paginator(board.standings, selectors.PAGE_SIZE).get_page(request.GET.get("page"))


@require_GET
def global_ranking(request):
    period = periods.parse(request.GET.get("period"))
    tag = request.GET.get("tag") or None
    since = periods.start_of(period)
    board = selectors.global_board(since=since, tag=tag)
    page = _page(request, board)
    return render(
        request,
        "leaderboard/global.html",
        {
            "page": page,
            "rows": presenters.mark_mine(presenters.global_rows(page, key=f"{since}:{tag}"), request.user),
            "mine": board.standing_of(request.user),
            "ranked": len(board.standings),
            "query": urlencode({"period": period, "tag": tag or ""}) + "&",
            "period": period,
            "periods": periods.PERIODS,
            "tag": tag or "",
            "tags": tags_in_use(),
            "penalty_per_rejection": PENALTY_PER_REJECTION_MIN,
        },
    )


@require_GET
def problem_ranking(request, slug):
    problem = selectors.ranked_problem(slug=slug)
    board = selectors.problem_board(problem)
    chart = presenters.chart(problem)
    mine = board.standing_of(request.user)
    own = (mine.flops, mine.residual_bytes) if mine and None not in (mine.flops, mine.residual_bytes) else None
    page = _page(request, board)
    rows = presenters.problem_rows(page, SHOWN, key=f"{problem.pk}:{problem.current_version_id}")
    return render(
        request,
        "leaderboard/problem.html",
        {
            "problem": problem,
            "version": problem.current_version,
            "page": page,
            "query": "",
            "rows": presenters.mark_mine(rows, request.user),
            "mine": mine,
            "ranked": len(board.standings),
            "ranking": ranking_for(problem),
            "metrics": SHOWN,
            "chart": chart.drawing.svg(own),
            "front": chart.front,
            "strategies": len(chart.points),
            "median_time_s": selectors.median_grading_time(problem),
        },
    )


@require_GET
def profile(request, username):
    data = selectors.profile(username=username)
    return render(request, "leaderboard/profile.html", {"profile": data, "own": request.user == data.learner})
