"""Reads of the leaderboard. Every ranking is a database aggregate: the global one over the
``Progress`` summaries (one row per learner and problem version), a problem's over its accepted
submissions; each is cached under the grading state (``core.freshness``), so a verdict,
a rejudge or a new version shows on the next request.

What counts: recorded submissions with a verdict (``rules``), on the problem's current published
version, for a problem still in the bank.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Max, Q, QuerySet, Sum, Window
from django.db.models.functions import Rank, RowNumber
from django.shortcuts import get_object_or_404

from judge.data import verdicts
from webplatform.catalog.models import Problem
from webplatform.catalog.selectors import get_public_problem
from webplatform.core.freshness import cached
from webplatform.submissions.models import Submission

from .metrics import Metric, ranking_for
from .models import Progress
from .pareto import pareto_front
from .rules import NOT_COUNTED

PAGE_SIZE = 50
RECENT_ACTIVITY = 10
# A public problem's current version (one kept for a course ranks nowhere until it is public).
CURRENT = Q(version_id=F("problem__current_version_id"), problem__is_active=True, problem__audience__isnull=True)


def counted_submissions() -> QuerySet[Submission]:
    """Recorded submissions with a verdict that counts, on any version (see ``rules``)."""
    return (
        Submission.objects.filter(kind=Submission.Kind.SUBMIT, status=Submission.Status.DONE)
        .exclude(verdict__in=NOT_COUNTED)
        .order_by()
    )


# --- Global ranking -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    user_id: int
    solved: int
    penalty: int  # minutes
    last_accepted: datetime


@dataclass
class Board:
    """A whole ranking, best first, and where each learner stands in it."""

    standings: list
    position: dict = field(default_factory=dict)  # user id -> index in standings

    def __post_init__(self):
        self.position = {row.user_id: index for index, row in enumerate(self.standings)}

    def standing_of(self, user) -> Standing | None:
        index = self.position.get(getattr(user, "pk", None))
        return None if index is None else self.standings[index]


def global_board(*, since: datetime | None = None, tag: str | None = None) -> Board:
    """Learners by problems solved, then penalty, then their last first acceptance; RANK() gives
    equal rows the same rank. ``since`` keeps the problems first accepted from then on (a
    period), ``tag`` the problems with that tag."""

    def compute() -> Board:
        solved = Progress.objects.filter(CURRENT, first_accepted_at__isnull=False)
        if since is not None:
            solved = solved.filter(first_accepted_at__gte=since)
        if tag:
            solved = solved.filter(problem__tags__name=tag)
        order = [F("solved").desc(), F("penalty").asc(), F("last").asc()]
        rows = (
            solved.values("user_id")
            .annotate(solved=Count("id"), penalty=Sum("penalty_min"), last=Max("first_accepted_at"))
            .annotate(rank=Window(Rank(), order_by=order))
            .order_by("rank", "user_id")
            .values_list("rank", "user_id", "solved", "penalty", "last")
        )
        return Board([Standing(*row) for row in rows])

    return cached(f"global:{since}:{tag}", compute)


def usernames(user_ids) -> dict[int, str]:
    return dict(get_user_model().objects.filter(pk__in=list(user_ids)).values_list("pk", "username"))


def submission_counts() -> dict[int, tuple[int, int]]:
    """{problem id: (graded, accepted)} over counted submissions to every version, summed from
    Progress (a row per learner and version) rather than counted over every submission."""

    def compute():
        rows = Progress.objects.values_list("problem_id").annotate(graded=Sum("submissions"), accepted=Sum("accepted"))
        return {problem_id: (graded, accepted) for problem_id, graded, accepted in rows.order_by()}

    return cached("problem-counts", compute)


# --- Per-problem ranking and chart --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """A learner's best accepted submission to a problem, with its figures."""

    rank: int
    submission_id: int
    user_id: int
    created_at: datetime
    residual_bytes: int | None
    flops: int | None
    peak_bytes: int | None
    xla_flops: int | None
    xla_peak_bytes: int | None
    grading_time_s: float | None

    def value(self, metric: Metric):
        return getattr(self, metric.field)


ENTRY_FIELDS = (
    "id",
    "user_id",
    "created_at",
    "residual_bytes",
    "flops",
    "peak_bytes",
    "xla_flops",
    "xla_peak_bytes",
    "grading_time_s",
)


def ranked_problem(*, slug: str) -> Problem:
    """The public active problem with this slug and its current version, or 404 (the catalog's,
    remembered per grading state: ``catalog.selectors.get_public_problem``)."""
    return get_public_problem(slug=slug)


def accepted_submissions(problem) -> QuerySet[Submission]:
    return counted_submissions().filter(CURRENT, problem=problem, verdict=verdicts.ACCEPTED)


def problem_board(problem) -> Board:
    """One row per learner, their best accepted submission by the problem's metrics (a missing
    figure ranks last), ties to the earlier submission. ROW_NUMBER() picks each learner's best;
    the database sorts; the rank is the position."""
    order = [F(metric.field).asc(nulls_last=True) for metric in ranking_for(problem)]
    order += [F("created_at").asc(), F("id").asc()]

    def compute() -> Board:
        best = (
            accepted_submissions(problem)
            .annotate(pick=Window(RowNumber(), partition_by=[F("user_id")], order_by=order))
            .filter(pick=1)
            .order_by(*order)
            .values_list(*ENTRY_FIELDS)
        )
        return Board([Entry(index, *row) for index, row in enumerate(best, start=1)])

    return cached(f"problem:{problem.pk}:{problem.current_version_id}", compute)


@dataclass(frozen=True, slots=True)
class Point:
    flops: int
    residual_bytes: int
    learners: int  # how many learners have an accepted submission with exactly these figures
    submissions: int


def chart_points(problem) -> list[Point]:
    """The distinct (FLOPs, residual bytes) pairs of accepted submissions, counted by the
    database: a strategy is one point however many learners found it. (Cached with its drawing:
    ``presenters.chart``.)"""
    pairs = (
        accepted_submissions(problem)
        .filter(flops__isnull=False, residual_bytes__isnull=False)
        .values_list("flops", "residual_bytes")
        .annotate(learners=Count("user_id", distinct=True), submissions=Count("id"))
        .order_by("flops", "residual_bytes")
    )
    return [Point(*pair) for pair in pairs]


def front_of(points: list[Point]) -> list[Point]:
    return pareto_front(points, x=lambda p: p.flops, y=lambda p: p.residual_bytes)


def median_grading_time(problem) -> float | None:
    """Of the ranked submissions (shown, never ranked: it depends on how busy the worker was)."""

    def compute():
        times = [entry.grading_time_s for entry in problem_board(problem).standings if entry.grading_time_s is not None]
        return statistics.median(times) if times else None

    return cached(f"median-time:{problem.pk}:{problem.current_version_id}", compute)


# --- Profile ----------------------------------------------------------------------------------


@dataclass
class Profile:
    learner: object
    problems: list  # dicts: problem__slug, problem__title, submissions, first_accepted_at (None: not yet)
    submissions: int
    solved: int
    standing: Standing | None
    ranked: int  # how many learners the all-time ranking has
    recent: list


def profile(*, username: str) -> Profile:
    learner = get_object_or_404(get_user_model(), username=username)
    problems = list(
        Progress.objects.filter(CURRENT, user=learner)
        .values("problem__slug", "problem__title", "submissions", "first_accepted_at")
        .order_by(F("first_accepted_at").asc(nulls_last=True), "problem__title")
    )
    board = global_board()
    recent = (
        Submission.objects.filter(
            user=learner, kind=Submission.Kind.SUBMIT, problem__is_active=True, problem__audience__isnull=True
        )
        .select_related("problem")
        .only("id", "verdict", "status", "created_at", "problem__slug", "problem__title", "user_id")
        .order_by("-created_at", "-id")[:RECENT_ACTIVITY]
    )
    return Profile(
        learner=learner,
        problems=problems,
        submissions=sum(p["submissions"] for p in problems),
        solved=sum(1 for p in problems if p["first_accepted_at"] is not None),
        standing=board.standing_of(learner),
        ranked=len(board.standings),
        recent=list(recent),
    )
