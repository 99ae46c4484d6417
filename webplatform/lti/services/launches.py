"""What a launch makes of the platform's ids: a site user per platform user, a course per
platform course (made by an instructor's first launch), a membership, and the assignment a placed
link opens.

Who is who comes from the launch's verified claims only (the platform signed them): ``sub``
under the registration is the user, the context the course, the roles claim the role."""

from __future__ import annotations

import hashlib
import re

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from lti_tool.models import LtiContext, LtiUser

from webplatform.core.params import parse_id
from webplatform.courses import services as courses
from webplatform.courses.models import Membership

from ..models import AssignmentLink, CourseContext

INSTRUCTOR_ROLES = ("#Instructor", "#Administrator", "#ContentDeveloper", "#TeachingAssistant")
Role = Membership.Role


def is_instructor_role(roles) -> bool:
    """Any teaching role of the LTI vocabulary (context roles, full URIs or short names)."""
    return any(role.endswith(INSTRUCTOR_ROLES) or role in ("Instructor", "Administrator") for role in roles or ())


def site_user(*, platform_user: LtiUser):
    """The site user the platform user is: made at their first launch, named after them (a short
    hash of their platform id keeps names apart), with no password: they come in through the
    platform. Later launches refresh their name and email."""
    with transaction.atomic():
        platform_user = LtiUser.objects.select_for_update().get(pk=platform_user.pk)
        user = platform_user.auth_user
        if user is None:
            user = _new_user(platform_user)
            platform_user.auth_user = user
            platform_user.save(update_fields=["auth_user", "datetime_modified"])
        names = {
            "first_name": platform_user.given_name[:150],
            "last_name": platform_user.family_name[:150],
            "email": platform_user.email,
        }
        if not names["first_name"] and platform_user.name:
            names["first_name"] = platform_user.name[:150]
        changed = [field for field, value in names.items() if value and getattr(user, field) != value]
        for field in changed:
            setattr(user, field, names[field])
        if changed:
            user.save(update_fields=changed)
    return user


def _new_user(platform_user: LtiUser):
    label = platform_user.email.split("@")[0] or platform_user.given_name or platform_user.name or "learner"
    base = re.sub(r"[^\w.+-]", "", label.replace(" ", ".").lower())[:100] or "learner"
    digest = hashlib.sha256(f"{platform_user.registration.uuid}:{platform_user.sub}".encode()).hexdigest()
    users = get_user_model().objects
    for length in (6, 10, 16, 64):
        name = f"{base}-{digest[:length]}"
        if not users.filter(username=name).exists():
            user = users.create_user(username=name)
            user.set_unusable_password()
            user.save(update_fields=["password"])
            return user
    raise IntegrityError(f"no free username for {platform_user}")


def course_of(*, context, user, instructor: bool, title: str, term: str):
    """The course a platform's course is; a platform instructor's first launch makes it (taught by
    them). None when no instructor has launched from it yet."""
    with transaction.atomic():
        LtiContext.objects.select_for_update().filter(pk=context.pk).first()  # one first launch at a time
        found = CourseContext.objects.filter(context=context).select_related("course").first()
        if found is not None:
            return found.course
        if not instructor:
            return None
        course = courses.create_course(user=user, title=title or "Course from the learning platform", term=term)
        CourseContext.objects.create(context=context, course=course)
        return course


LIS_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/lis"


def student_id_of(get_claim) -> str:
    """The learner's id at their school as a launch sends it (``lis.person_sourcedid``: Canvas's
    SIS User ID, Moodle's ID number), or ""."""
    lis = get_claim(LIS_CLAIM)
    found = lis.get("person_sourcedid") if isinstance(lis, dict) else None
    return found if isinstance(found, str) else ""


def join(*, course, user, instructor: bool, student_id: str = "") -> None:
    courses.enrol(course=course, user=user, role=Role.INSTRUCTOR if instructor else Role.LEARNER, student_id=student_id)


def link_assignment(*, resource_link, assignment, endpoint: dict | None) -> AssignmentLink:
    """The placed link opens this assignment; ``endpoint``: the launch's AGS claim (its line item
    and scopes), kept for passback."""
    endpoint = endpoint or {}
    link, _ = AssignmentLink.objects.update_or_create(
        resource_link=resource_link,
        defaults={
            "assignment": assignment,
            "lineitem_url": endpoint.get("lineitem", ""),
            "lineitems_url": endpoint.get("lineitems", ""),
            "scopes": list(endpoint.get("scope", [])),
        },
    )
    return link


def check_assignment(*, course, assignment_id) -> object:
    """The assignment a link names, which must be the course's (a custom parameter is signed by
    the platform, but names our ids: a link copied into another platform course names nothing)."""
    number = parse_id(assignment_id)  # "1²" is no id: str.isdigit() would take it, int() not
    found = course.assignments.filter(pk=number).first() if number is not None else None
    if found is None:
        raise ValidationError(
            "This link opens an assignment of another course, or one that was deleted: "
            "your instructor places it again with the platform's content selection."
        )
    return found
