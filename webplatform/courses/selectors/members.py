"""Who belongs to a course, and who may see what: a course, its assignments and its roster are a
404 to anyone outside it, and its instructors' pages to its learners (as if they did not exist)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import F, QuerySet
from django.http import Http404

from webplatform.accounts.selectors import INSTRUCTORS_GROUP, is_instructor

from ..models import Assignment, Course, Membership

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
