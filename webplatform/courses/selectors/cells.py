"""What counts for an assignment: each learner's deadlines (their extension counted), the
instructor rule (``made_for``: which attempts were made for it) and the gradebook's cells."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta

from django.db.models import Count, DateTimeField, Exists, ExpressionWrapper, F, OuterRef, Q, QuerySet, Subquery, Value

from webplatform.catalog.models import Problem
from webplatform.leaderboard.selectors import counted_submissions
from webplatform.submissions.models import Submission

from .. import rules
from ..models import Assignment, Extension, Membership
from .members import Role
from .problems import problems_of


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
