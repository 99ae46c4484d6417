"""The learner's pages: each assignment with their own deadlines, cells and score, what is due
soon across their courses, and the assignment a problem page was opened from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from webplatform.catalog.models import Problem

from .. import rules
from ..models import Assignment, Course, Standing
from .cells import cells, deadlines_for, extensions
from .members import Role, courses_of
from .problems import problems_of, weights


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
