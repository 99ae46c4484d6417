"""Reads of submissions. Only the author may read a submission (and its code)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.models import Case, F, IntegerField, Q, QuerySet, Value, When, Window
from django.db.models.fields.json import KT
from django.db.models.functions import RowNumber
from django.http import Http404

from judge.data import verdicts
from judge.data.evidence import COST_REVISION
from webplatform.core.freshness import cached
from webplatform.core.prepared import prepared
from webplatform.core.queues import BACKGROUND, PRIORITY

from .models import Submission

Status = Submission.Status


def _shown() -> QuerySet[Submission]:
    # The version's package files (every file, as JSON) are the workers' business, not a page's.
    return Submission.objects.select_related("problem", "version").defer("version__files")


def get_own_submission(*, user, submission_id: int) -> Submission:
    """The user's own submission; someone else's is a 404, as if it did not exist."""
    submission = _shown().filter(pk=submission_id, user_id=user.pk).first() if user.is_authenticated else None
    if submission is None:
        raise Http404("no such submission")
    return submission


def _followed() -> QuerySet[Submission]:
    """What a grading's status (``views.status_payload``) reads, and no more: its row without the
    code, and of its version only the device (its place in line). A class's streams read 2000 rows
    at once when their verdicts land; the version's statement, reference and samples (JSON decoded
    on every row) and the problem made most of that read."""
    version_fields = [
        f"version__{field.name}"
        for field in Submission._meta.get_field("version").related_model._meta.concrete_fields
        if field.name not in ("id", "device")
    ]
    return Submission.objects.select_related("version").defer("source", *version_fields)


def submissions_by_id(*, ids) -> dict[int, Submission]:
    """The submissions among ``ids``, whoever's, by id: for the event streams, which look at many
    at once and each keep only its learner's own (``stream._look_many``)."""
    return {s.pk: s for s in _followed().filter(pk__in=list(ids))}


def own_submissions(*, user, ids) -> list[Submission]:
    """The user's own submissions among ``ids``, in the order of ``ids``; any other id is a 404."""
    ids = list(dict.fromkeys(ids))
    found = {s.pk: s for s in _shown().filter(pk__in=ids, user_id=user.pk)} if user.is_authenticated else {}
    if len(found) != len(ids):
        raise Http404("no such submission")
    return [found[pk] for pk in ids]


def user_history(
    *, user, problem=None, problem_slug: str | None = None, kind: str | None = None
) -> QuerySet[Submission]:
    # The version's package files (every file, as JSON) are the workers' business, not a list's.
    submissions = (
        Submission.objects.filter(user_id=user.pk)
        .select_related("problem", "version")
        .defer("source", "report", "version__files")
    )
    if problem is not None:
        submissions = submissions.filter(problem=problem)
    if problem_slug:
        submissions = submissions.filter(problem__slug=problem_slug)
    if kind:
        submissions = submissions.filter(kind=kind)
    return submissions.order_by("-created_at", "-id")


RECENT = 10  # attempts a problem page lists

_recent = prepared(
    lambda user_id, problem_id: Submission.objects.filter(user_id=user_id, problem_id=problem_id)
    .only("id", "kind", "status", "verdict", "message", "created_at")
    .annotate(report_cause=KT("report__cause"), report_advice=KT("report__advice"))
    .order_by("-created_at", "-id")[:RECENT]
)


def recent_attempts(*, user, problem, limit: int = RECENT) -> list[Submission]:
    """The learner's latest attempts at one problem (``limit``, at most ``RECENT``), with only what
    a short list shows: no joins, and of the report only its cause and advice (``report_cause``,
    ``report_advice``: the whole report, read per row, was one more query per attempt). The
    problem page lists them on every view, so its SQL is written once (``core.prepared``)."""
    if not user.is_authenticated:
        return []
    return _recent(user_id=user.pk, problem_id=problem.pk)[:limit]


# Learners whose solved problems one grading state remembers (each a few integers).
_SOLVED_MAX = 20_000


def solved_problem_ids(*, user) -> set[int]:
    """The problems ``user`` has solved (an accepted submission, of any version).

    Asked on every view of the problem list and of a problem page, so remembered per grading
    state (``core.freshness``): a verdict moves the state, so it shows on the next page, and
    until one lands each learner's set is read once per process, not once per view."""
    if not user.is_authenticated:
        return set()
    table = cached("solved-problem-ids", dict)  # {user id: frozenset of problem ids}, this state's
    found = table.get(user.pk)
    if found is None:
        found = frozenset(
            Submission.objects.filter(user=user, kind=Submission.Kind.SUBMIT, verdict=verdicts.ACCEPTED)
            .order_by()
            .values_list("problem_id", flat=True)
            .distinct()
        )
        if len(table) < _SOLVED_MAX:
            table[user.pk] = found
    return set(found)


def has_solved(*, user, problem) -> bool:
    return problem.pk in solved_problem_ids(user=user)


def figures_to_remeasure(*, slugs=(), device: str | None = None, again: bool = False) -> QuerySet[Submission]:
    """Graded recorded submissions whose stored cost figures were counted by rules corrected
    since (their report's cost has an older revision, or none), oldest first; with ``again``,
    every measured one. ``slugs``: of these problems only; ``device``: of problem versions graded
    on it."""
    # A figure not measured is a key left out (reports before judge.data.records) or a JSON null (since):
    # ``__isnull`` asks for the key, ``=None`` for the null.
    found = Submission.objects.filter(
        kind=Submission.Kind.SUBMIT, status=Submission.Status.DONE, report__cost__flops__isnull=False
    ).exclude(report__cost__flops=None)
    if not again:
        found = found.filter(
            Q(report__cost__revision__isnull=True)
            | Q(report__cost__revision=None)
            | Q(report__cost__revision__lt=COST_REVISION)
        )
    if slugs:
        found = found.filter(problem__slug__in=list(slugs))
    if device is not None:
        found = found.filter(version__device=device)
    return found.select_related("user", "problem", "version").order_by("finished_at", "id")


@dataclass
class Place:
    """Where a queued grading stands: ``ahead`` gradings go before it in its queue; or, while
    it waits behind its author's own earlier gradings (the per-learner cap), ``own_ahead`` of
    those, in flight or waiting before it, and ``ahead`` None (it has no place in the queue yet)."""

    ahead: int | None
    own_ahead: int = 0


def _queue_lanes(submission: Submission) -> list[str]:
    """The lanes whose gradings share ``submission``'s queue (background work has its own)."""
    return [lane for lane in PRIORITY if (lane == BACKGROUND) == (submission.lane == BACKGROUND)]


def _in_line(lanes: list[str], device: str) -> QuerySet[Submission]:
    """The published gradings waiting in the queue of ``lanes`` on ``device``."""
    return Submission.objects.filter(
        status=Status.QUEUED, published_at__isnull=False, lane__in=lanes, version__device=device
    )


def queue_place(submission: Submission) -> Place | None:
    """None unless the submission is queued. A grading goes after everything published before
    it in its queue, and after every grading of a lane read before its own ("Run samples"
    before submissions: see core.queues)."""
    if submission.status != Status.QUEUED:
        return None
    if submission.published_at is None:
        earlier_held = Q(status=Status.QUEUED, published_at__isnull=True) & (
            Q(enqueued_at__lt=submission.enqueued_at) | Q(enqueued_at=submission.enqueued_at, pk__lt=submission.pk)
        )
        own = (
            Submission.objects.filter(user_id=submission.user_id, lane=submission.lane)
            .filter(Q(status=Status.RUNNING) | Q(status=Status.QUEUED, published_at__isnull=False) | earlier_held)
            .count()
        )
        return Place(ahead=None, own_ahead=own)
    mine = submission.published_at
    same_queue = _queue_lanes(submission)
    before = [lane for lane in same_queue if PRIORITY[lane] < PRIORITY[submission.lane]]
    ahead = (
        _in_line(same_queue, submission.version.device)
        .filter(
            Q(lane__in=before)
            | Q(lane=submission.lane, published_at__lt=mine)
            | Q(lane=submission.lane, published_at=mine, pk__lt=submission.pk)
        )
        .count()
    )
    return Place(ahead=ahead)


def queue_places(submissions) -> dict[int, Place | None]:
    """``queue_place`` of each of ``submissions``, by id. The published ones of one queue are
    ranked in one query, however many: a class's event streams look at hundreds at once, and a
    count each (about 1.2 ms of CPU, 2000 waiting) made their looks cost half a core (`make bench`).
    The ranking's order is the count's: lanes read first, then published first, then by id."""
    places: dict[int, Place | None] = {}
    lines: dict[tuple, list[Submission]] = {}
    for submission in submissions:
        if submission.status == Status.QUEUED and submission.published_at is not None:
            lines.setdefault((tuple(_queue_lanes(submission)), submission.version.device), []).append(submission)
        else:
            places[submission.pk] = queue_place(submission)
    for (lanes, device), waiting in lines.items():
        if len(waiting) == 1:  # a count reads less than a ranking of the whole line
            places[waiting[0].pk] = queue_place(waiting[0])
            continue
        read_first = Case(*[When(lane=lane, then=Value(PRIORITY[lane])) for lane in lanes], output_field=IntegerField())
        ranked = (
            _in_line(list(lanes), device)
            .annotate(place=Window(RowNumber(), order_by=[read_first.asc(), F("published_at").asc(), F("pk").asc()]))
            .values_list("pk", "place")
        )
        # The ranking must see the whole line before the rows asked for are picked out of it: the
        # ORM would filter first, so the picking wraps the query it wrote.
        sql, params = ranked.query.sql_with_params()
        ids = [submission.pk for submission in waiting]
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT * FROM ({sql}) ranked WHERE ranked.pk IN ({', '.join(['%s'] * len(ids))})", [*params, *ids]
            )
            places.update({pk: Place(ahead=place - 1) for pk, place in cursor.fetchall()})
        for submission in waiting:  # left the line since it was read: as a look of its own would see it
            if submission.pk not in places:
                places[submission.pk] = queue_place(submission)
    return places


def describe_place(place: Place | None) -> str:
    """The place in words, as the status line shows it."""
    if place is None:
        return ""
    if place.ahead is None:
        cap = settings.GRADING["PER_LEARNER_IN_FLIGHT"]
        at_a_time = "one of your gradings runs" if cap == 1 else f"{cap} of your gradings run"
        return (
            f"waits for your {place.own_ahead} earlier grading{'s' if place.own_ahead != 1 else ''} "
            f"({at_a_time} at a time, so that everyone's get their turn)"
        )
    if place.ahead == 0:
        return "next in line"
    return f"{place.ahead} grading{'s' if place.ahead != 1 else ''} ahead of yours"
