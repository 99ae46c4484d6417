"""The problems of a course: those an assignment sets (in its order, with their weights), those it
may set, and those published to the course only (and the drafts that may be)."""

from __future__ import annotations

from django.db.models import Case, Q, QuerySet, Value, When

from webplatform.authoring.selectors import drafts_for, passing_validation
from webplatform.catalog import track
from webplatform.catalog.models import PUBLIC, Problem

from ..models import Assignment, Course
from .members import Role, courses_of


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
