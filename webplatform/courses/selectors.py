"""Reads of courses: who belongs, what is due, the cells of the gradebook, and who may see what.

A course's pages are for its members; its gradebook, statistics and its learners' code for its
instructors. Anything a user may not see is a 404, as if it did not exist (a course id says
nothing about whether the course exists)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db.models import (
    Case,
    Count,
    DateTimeField,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.http import Http404
from django.utils import timezone

from judge.data import verdicts
from webplatform.accounts.selectors import INSTRUCTORS_GROUP, is_instructor
from webplatform.authoring.selectors import drafts_for, passing_validation
from webplatform.catalog import track
from webplatform.catalog.models import PUBLIC, Problem
from webplatform.leaderboard.selectors import counted_submissions
from webplatform.submissions.models import Submission

from . import causes, rules
from .models import Assignment, Course, Extension, Membership, SimilarityCheck, SimilarPair, Standing

Role = Membership.Role


def can_create_courses(user) -> bool:
    """Instructors (who author problems) and staff start courses; anyone may be made a co-instructor."""
    return is_instructor(user)


def account(identifier: str):
    """The user with this username (exactly), else the one with this e-mail address (any case), or
    None: none, or several with that address."""
    text = identifier.strip()
    if not text:
        return None
    users = get_user_model().objects
    named = users.filter(username=text).first()
    if named is not None:
        return named
    found = list(users.filter(email__iexact=text).exclude(email="")[:2])
    return found[0] if len(found) == 1 else None


def site_instructors() -> list:
    """The users holding the instructor role (the group), by username."""
    return list(get_user_model().objects.filter(groups__name=INSTRUCTORS_GROUP).order_by("username"))


def holds_instructor_role(user) -> bool:
    """In the instructors group (staff are instructors without it: ``can_create_courses``)."""
    return user.groups.filter(name=INSTRUCTORS_GROUP).exists()


def courses_of(user) -> list[Membership]:
    """The courses the user is an active member of (one who left the platform's course is not)."""
    if not user.is_authenticated:
        return []
    return list(
        Membership.objects.filter(user=user, inactive_since__isnull=True)
        .select_related("course")
        .order_by("-course__created_at")
    )


def taught_courses(user) -> list[Course]:
    """The courses the user teaches (an instructor's active memberships), newest first."""
    return [member.course for member in courses_of(user) if member.role == Role.INSTRUCTOR]


def membership(*, user, course_id: int) -> Membership:
    """The user's active membership of the course, or 404."""
    found = (
        Membership.objects.select_related("course")
        .filter(course_id=course_id, user_id=user.pk, inactive_since__isnull=True)
        .first()
        if user.is_authenticated
        else None
    )
    if found is None:
        raise Http404("no such course")
    return found


def taught(*, user, course_id: int) -> Course:
    """A course the user teaches, or 404 (learners and strangers alike)."""
    found = membership(user=user, course_id=course_id)
    if found.role != Role.INSTRUCTOR:
        raise Http404("no such course")
    return found.course


def roster_member(*, course: Course, user_id: int) -> Membership:
    """The course's membership of this user (active or not), or 404."""
    found = course.memberships.select_related("user").filter(user_id=user_id).first()
    if found is None:
        raise Http404("no such member")
    return found


def assignment_of(*, course: Course, assignment_id: int) -> Assignment:
    found = course.assignments.filter(pk=assignment_id).first()
    if found is None:
        raise Http404("no such assignment")
    return found


def learners(course: Course, *, active_only: bool = False) -> QuerySet:
    """The course's learners, each with ``inactive_since`` (None while active) and ``student_id``
    (their id at their school, "" when nobody gave it); those a roster sync made inactive too
    unless ``active_only``: their attempts still count in the gradebook."""
    found = {"course_memberships__course": course, "course_memberships__role": Role.LEARNER}
    if active_only:
        found["course_memberships__inactive_since__isnull"] = True
    # one filter() call: its conditions and the annotation are about the same membership
    return (
        get_user_model()
        .objects.filter(**found)
        .annotate(
            inactive_since=F("course_memberships__inactive_since"), student_id=F("course_memberships__student_id")
        )
        .order_by("username")
    )


def roster(course: Course) -> list[Membership]:
    """Members, active ones first."""
    return list(
        course.memberships.select_related("user").order_by(
            F("inactive_since").asc(nulls_first=True), "role", "user__username"
        )
    )


def problems_of(assignment: Assignment) -> list[Problem]:
    """The assignment's problems in its order, each with its ``weight`` in it (``weights``)."""
    found = []
    for item in assignment.items.select_related("problem").order_by("position", "id"):
        item.problem.weight = item.weight
        found.append(item.problem)
    return found


def weights(problems: list[Problem]) -> list[int]:
    """The weights of ``problems_of``'s problems, in their order."""
    return [problem.weight for problem in problems]


def points_possible(assignment: Assignment) -> int:
    """What the assignment is out of: its problems' weights added (what grade passback reports)."""
    return sum(assignment.items.values_list("weight", flat=True))


def assignable_problems(course: Course) -> QuerySet[Problem]:
    """What an assignment of the course may set: public problems and those kept for this course,
    in the site's order (the track's, then the rest by title: ``catalog.track``), as the picker
    lists them and so as a new assignment orders them."""
    found = Problem.objects.filter(
        PUBLIC | Q(is_active=True, audience=course.audience_id), current_version__isnull=False
    )
    ordered = sorted(found.values_list("pk", "slug", "title"), key=lambda row: track.place_of(row[1], row[2]))
    rank = Case(*[When(pk=pk, then=Value(i)) for i, (pk, _, _) in enumerate(ordered)], default=Value(len(ordered)))
    return found.order_by(rank, "title")


def course_problems(course: Course) -> QuerySet[Problem]:
    """Problems published to this course only."""
    return Problem.objects.filter(audience=course.audience_id).order_by("title")


def publishable_drafts(*, user, course: Course) -> list:
    """The user's drafts that may be published to this course: validated as they are, never
    published to everyone nor to another course."""
    return [
        draft
        for draft in drafts_for(user)
        if passing_validation(draft) is not None
        and (draft.problem is None or draft.problem.audience_id == course.audience_id)
    ]


def publish_targets(*, user, draft) -> list[Course]:
    """The courses a new problem's validated draft may be published to, for this course only:
    those the user teaches and has not archived (none for a draft already published: its
    audience stays)."""
    if draft.problem_id is not None or not user.is_authenticated:
        return []
    return [m.course for m in courses_of(user) if m.role == Role.INSTRUCTOR and not m.course.archived]


# --- deadlines and cells ------------------------------------------------------------------------


def deadlines_for(assignment: Assignment, extended_to: datetime | None = None) -> rules.Deadlines:
    return rules.deadlines(
        opens_at=assignment.opens_at,
        due_at=assignment.due_at,
        late_until=assignment.late_until,
        penalty_percent=assignment.late_penalty_percent,
        extended_to=extended_to,
    )


def extensions(assignment: Assignment, user_ids=None) -> dict[int, datetime]:
    found = Extension.objects.filter(assignment=assignment)
    if user_ids is not None:
        found = found.filter(user_id__in=list(user_ids))
    return dict(found.values_list("user_id", "due_at"))


# --- the instructor rule ----------------------------------------------------------------------


def made_for(assignment: Assignment, attempts: QuerySet[Submission] | None = None) -> QuerySet[Submission]:
    """The instructor rule: of ``attempts`` (every submission when None), those a learner made for
    ``assignment``: to one of its problems, while it was open for them (from its opening to their
    last deadline, their extension counted) and while they were a learner of its course (since
    they joined, and not after a roster sync found them gone). A course's instructors read a
    learner's attempt only when it is one of these, for one of the course's assignments: the
    submission page, the gradebook (page, CSV, API), the statistics and the similarity report all
    read through here, and a learner's score counts the same attempts."""
    attempts = Submission.objects.all() if attempts is None else attempts
    late_span = assignment.late_until - assignment.due_at if assignment.late_until else timedelta(0)
    extended_to = Extension.objects.filter(assignment=assignment, user_id=OuterRef("user_id")).values("due_at")[:1]
    member = Membership.objects.filter(
        Q(inactive_since__isnull=True) | Q(inactive_since__gt=OuterRef("created_at")),
        course_id=assignment.course_id,
        user_id=OuterRef("user_id"),
        role=Role.LEARNER,
        joined_at__lte=OuterRef("created_at"),
    )
    return (
        attempts.filter(problem_id__in=assignment.items.values("problem_id"), created_at__gte=assignment.opens_at)
        .alias(
            extended_to=Subquery(extended_to),
            # before its extended due time plus the late window the assignment gives
            late_start=ExpressionWrapper(F("created_at") - Value(late_span), output_field=DateTimeField()),
        )
        .filter(
            Q(extended_to__isnull=True, created_at__lte=assignment.late_until or assignment.due_at)
            | Q(extended_to__gte=F("late_start"))
        )
        .filter(Exists(member))
    )


def cells(
    assignment: Assignment, user_ids, problems: list[Problem] | None = None, *, outside: bool = False
) -> dict[int, list[rules.Cell]]:
    """{user id: a cell per problem of the assignment, in its order}: one query over the counted
    submissions of these learners made for the assignment (``made_for``; id, time and verdict only).
    An archived course's cells are as they were when it was archived: a verdict that lands later
    (a grading finished, a rejudge) changes nothing. ``outside``: also count each learner's other
    attempts at the problems (before it opened, after it closed, before they joined), for their
    own pages; an instructor's gradebook never sees them."""
    problems = problems_of(assignment) if problems is None else problems
    user_ids = list(user_ids)
    extended = extensions(assignment, user_ids)
    attempts = defaultdict(list)
    counted = made_for(assignment, counted_submissions().filter(user_id__in=user_ids, problem__in=problems))
    archived_at = assignment.course.archived_at
    if archived_at is not None:
        counted = counted.filter(finished_at__lte=archived_at)
    rows = counted.order_by("created_at", "id").values_list("user_id", "problem_id", "id", "created_at", "verdict")
    for user_id, problem_id, *attempt in rows.iterator(chunk_size=2000):
        attempts[user_id, problem_id].append(tuple(attempt))
    table = {
        user_id: [
            rules.cell(attempts[user_id, p.pk], deadlines_for(assignment, extended.get(user_id))) for p in problems
        ]
        for user_id in user_ids
    }
    if outside:
        every = (
            counted_submissions()
            .filter(user_id__in=user_ids, problem__in=problems)
            .values_list("user_id", "problem_id")
            .annotate(n=Count("id"))
        )
        totals = {(user_id, problem_id): n for user_id, problem_id, n in every}
        for user_id, row in table.items():
            row[:] = [
                replace(cell, outside=totals.get((user_id, p.pk), 0) - cell.attempts) for p, cell in zip(problems, row)
            ]
    return table


# --- the learner's pages ------------------------------------------------------------------------


@dataclass
class AssignmentView:
    """One assignment as a learner sees it: their own deadlines, cells and score."""

    assignment: Assignment
    deadlines: rules.Deadlines
    extended: bool
    problems: list = field(default_factory=list)  # (problem, cell)
    score: rules.Score | None = None

    def state(self, now: datetime) -> str:
        """upcoming, open, late (in the late window) or closed; every assignment of an archived
        course is closed (nothing counts there any more: its standings are frozen)."""
        if self.assignment.course.archived_at is not None:
            return "closed"
        if now < self.deadlines.opens_at:
            return "upcoming"
        if now <= self.deadlines.due_at:
            return "open"
        return "late" if now <= self.deadlines.closes_at else "closed"


def assignment_view(*, assignment: Assignment, user) -> AssignmentView:
    extended_to = extensions(assignment, [user.pk]).get(user.pk)
    problems = problems_of(assignment)
    row = cells(assignment, [user.pk], problems, outside=True)[user.pk]
    return AssignmentView(
        assignment,
        deadlines_for(assignment, extended_to),
        extended_to is not None,
        list(zip(problems, row)),
        rules.score(row, weights(problems)),
    )


def visible_assignments(*, course: Course, user, instructor: bool) -> list[AssignmentView]:
    """The course's assignments for this user: every one for instructors, those already open for
    learners (an upcoming one is listed with its opening time, its problems hidden)."""
    views = []
    for assignment in course.assignments.order_by("due_at", "id"):
        if instructor:
            views.append(AssignmentView(assignment, deadlines_for(assignment), False))
        else:
            views.append(assignment_view(assignment=assignment, user=user))
    return views


def assignment_context(*, user, assignment_id: int | None, problem: Problem) -> tuple[Course, AssignmentView] | None:
    """The assignment a learner opened ``problem`` from (``?assignment=`` on the problem page): its
    course and their own deadlines, or None where it is not theirs, not open yet, or does not set
    the problem (the page then shows none, as it would without the link)."""
    if assignment_id is None or not user.is_authenticated:
        return None
    found = (
        Assignment.objects.select_related("course")
        .filter(
            pk=assignment_id,
            items__problem=problem,
            course__memberships__user=user,
            course__memberships__role=Role.LEARNER,
            course__memberships__inactive_since__isnull=True,
        )
        .first()
    )
    if found is None:
        return None
    view = assignment_view(assignment=found, user=user)
    return None if view.state(timezone.now()) == "upcoming" else (found.course, view)


def due_soon(*, user, now: datetime | None = None) -> list[tuple[Course, AssignmentView]]:
    """Across the learner's courses: open assignments (or in their late window) not solved in
    full, soonest deadline first."""
    now = now or timezone.now()
    found = []
    for member in courses_of(user):
        if member.role != Role.LEARNER or member.course.archived:
            continue
        for view in visible_assignments(course=member.course, user=user, instructor=False):
            if view.state(now) in ("open", "late") and view.score.solved < view.score.problems:
                found.append((member.course, view))
    return sorted(found, key=lambda pair: pair[1].deadlines.due_at)


def standing_of(*, assignment: Assignment, user) -> Standing | None:
    return Standing.objects.filter(assignment=assignment, user=user).first()


# --- the gradebook --------------------------------------------------------------------------------

SHOW = {
    "all": "every learner",
    "missing": "not solved in full",
    "late": "with a late acceptance",
    "complete": "solved in full",
    "none": "no attempt yet",
}


@dataclass
class Row:
    learner: object
    cells: list
    score: rules.Score
    extended_to: datetime | None


@dataclass
class Gradebook:
    assignment: Assignment
    problems: list
    rows: list
    total: int  # learners before filtering


def gradebook(*, assignment: Assignment, search: str = "", show: str = "all") -> Gradebook:
    """Learners by problems: each cell the best verdict that counts, attempts, time of acceptance
    and whether late. ``search``: part of a username, name, email or student id; ``show``: a key
    of SHOW."""
    problems = problems_of(assignment)
    everyone = list(learners(assignment.course))
    table = cells(assignment, [u.pk for u in everyone], problems)
    extended = extensions(assignment)
    rows = [Row(u, table[u.pk], rules.score(table[u.pk], weights(problems)), extended.get(u.pk)) for u in everyone]
    needle = search.strip().lower()
    if needle:
        rows = [
            r
            for r in rows
            if needle
            in " ".join((r.learner.username, r.learner.get_full_name(), r.learner.email, r.learner.student_id)).lower()
        ]
    keep = {
        "missing": lambda r: r.score.solved < r.score.problems,
        "late": lambda r: r.score.late > 0,
        "complete": lambda r: r.score.problems and r.score.solved == r.score.problems,
        "none": lambda r: not any(c.attempts for c in r.cells),
    }.get(show)
    if keep is not None:
        rows = [r for r in rows if keep(r)]
    return Gradebook(assignment, problems, rows, len(everyone))


# The course statistics read the causes of this many of the latest failed attempts at most: enough
# for a class, bounded however many attempts a problem has.
CAUSE_SAMPLE = 2000


def failure_causes(*, assignment: Assignment, problem: Problem, sample: int = CAUSE_SAMPLE) -> tuple[list, int]:
    """The causes of the course's learners' failed attempts at ``problem`` since the assignment
    opened (``causes``), and how many attempts they come from."""
    rows = list(
        made_for(assignment, counted_submissions().filter(problem=problem))
        .exclude(verdict=verdicts.ACCEPTED)
        .order_by("-id")
        .values_list("id", "user_id", "verdict", "message", "report__cause")[:sample]
    )
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in={row[1] for row in rows})}
    return causes.count_causes(rows, users), len(rows)


def course_submission(*, course: Course, submission_id: int) -> Submission:
    """A learner's submission, for the course's instructors, only when it was made for one of the
    course's assignments (``made_for``: while it was open and they were in the course). Their
    practice before, such as a problem added later to an assignment that opens next year, or an
    attempt from before they joined, stays theirs: anything else is a 404."""
    found = Submission.objects.select_related("problem", "version", "user").filter(pk=submission_id).first()
    if found is None or not any(
        made_for(assignment, Submission.objects.filter(pk=found.pk)).exists()
        for assignment in course.assignments.filter(items__problem_id=found.problem_id)
    ):
        raise Http404("no such submission")
    return found


# --- similarity checks ----------------------------------------------------------------------------


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
