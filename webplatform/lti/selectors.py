"""Reads of the LTI tool."""

from __future__ import annotations

from lti_tool.models import LtiRegistration


def is_registered(*, registration_uuid) -> bool:
    """Whether a login may start under this registration (django-lti's active ones)."""
    return LtiRegistration.objects.active().filter(uuid=registration_uuid).exists()
