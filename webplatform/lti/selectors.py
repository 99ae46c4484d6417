"""Reads of the LTI tool."""

from __future__ import annotations

from lti_tool.models import LtiRegistration

from .models import CourseContext, RosterSync


def is_registered(*, registration_uuid) -> bool:
    """Whether a login may start under this registration (django-lti's active ones)."""
    return LtiRegistration.objects.active().filter(uuid=registration_uuid).exists()


def roster_panel(*, course) -> dict | None:
    """What the course page says of the roster sync: None for a course no platform launch
    linked; else whether the platform offers the roster, and the latest sync."""
    links = CourseContext.objects.filter(course=course).select_related("context")
    if not links.exists():
        return None
    return {
        "template": "lti/_roster_sync.html",
        "course": course,
        "offered": any(link.context.memberships_url for link in links),
        "latest": RosterSync.objects.filter(course=course).first(),
    }
