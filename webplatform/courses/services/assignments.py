"""Assignments: their deadlines, late window and penalty, problems and weights, and a learner's
extension; every learner's standing follows at once."""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction

from .. import selectors
from ..models import MAX_WEIGHT, Assignment, AssignmentProblem, Course, Extension, Membership
from .archiving import check_open
from .standings import refresh_standings

Role = Membership.Role


def _check_times(opens_at, due_at, late_until, penalty) -> None:
    errors = {}
    if due_at <= opens_at:
        errors["due_at"] = "The due time must come after the opening time."
    if late_until is not None and late_until <= due_at:
        errors["late_until"] = "The late window must end after the due time (leave it empty for none)."
    if not 0 <= penalty <= 100:
        errors["late_penalty_percent"] = "The penalty is a percentage, from 0 to 100."
    if errors:
        raise ValidationError(errors)


def _check_weights(problems: list, chosen: dict) -> None:
    wrong = [
        f"{p.title}: {chosen[p.pk]!r} is not a whole number from 0 to {MAX_WEIGHT}"
        for p in problems
        if isinstance(chosen[p.pk], bool) or not isinstance(chosen[p.pk], int) or not 0 <= chosen[p.pk] <= MAX_WEIGHT
    ]
    if wrong:
        raise ValidationError(
            {"weights": [f"A problem's weight is a whole number from 0 to {MAX_WEIGHT}. " + "; ".join(wrong) + "."]}
        )
    if sum(chosen.values()) < 1:
        # a total of 0 grades nothing, and a platform takes no score out of 0
        raise ValidationError(
            {
                "weights": [
                    "At least one problem weighs 1 or more: with every weight 0 the assignment counts for nothing."
                ]
            }
        )


@transaction.atomic
def save_assignment(
    *,
    course: Course,
    title: str,
    opens_at: datetime,
    due_at: datetime,
    late_until: datetime | None,
    late_penalty_percent: int,
    problems: list,
    assignment: Assignment | None = None,
    weights: dict | None = None,
) -> Assignment:
    """Creates the assignment, or changes one (its deadlines, penalty, problems, their weights):
    every learner's standing follows at once, from the submissions' own times. ``weights``:
    {problem id: weight}; a problem it does not name keeps its weight (1 when new)."""
    check_open(course)
    _check_times(opens_at, due_at, late_until, late_penalty_percent)
    if not problems:
        raise ValidationError({"problems": "An assignment sets at least one problem."})
    kept = dict(assignment.items.values_list("problem_id", "weight")) if assignment is not None else {}
    chosen = {p.pk: (weights or {}).get(p.pk, kept.get(p.pk, 1)) for p in problems}
    _check_weights(problems, chosen)
    allowed = set(selectors.assignable_problems(course).values_list("pk", flat=True))
    if any(p.pk not in allowed for p in problems):
        raise ValidationError({"problems": "An assignment sets public problems and this course's own."})
    if assignment is None:
        assignment = Assignment(course=course)
    elif assignment.course_id != course.pk:
        raise ValidationError("that assignment belongs to another course")
    assignment.title, assignment.opens_at, assignment.due_at = title.strip(), opens_at, due_at
    assignment.late_until, assignment.late_penalty_percent = late_until, late_penalty_percent
    assignment.save()
    assignment.items.exclude(problem__in=problems).delete()
    for position, problem in enumerate(problems):
        AssignmentProblem.objects.update_or_create(
            assignment=assignment, problem=problem, defaults={"position": position, "weight": chosen[problem.pk]}
        )
    refresh_standings(assignment=assignment)
    return assignment


@transaction.atomic
def set_extension(*, assignment: Assignment, user, due_at: datetime | None) -> None:
    """The learner's own due time (None takes the extension back); their standing follows."""
    check_open(assignment.course)
    if not Membership.objects.filter(course=assignment.course_id, user=user, role=Role.LEARNER).exists():
        raise ValidationError("extensions are for learners of this course")
    if due_at is None:
        Extension.objects.filter(assignment=assignment, user=user).delete()
    else:
        if due_at <= assignment.opens_at:
            raise ValidationError({"due_at": "An extended due time comes after the opening time."})
        Extension.objects.update_or_create(assignment=assignment, user=user, defaults={"due_at": due_at})
    refresh_standings(assignment=assignment, user_ids=[user.pk])
