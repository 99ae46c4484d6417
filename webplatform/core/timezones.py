"""Times in the reader's own time zone.

The browser says which zone it is in (``arena/timezone.js`` stores
``Intl.DateTimeFormat().resolvedOptions().timeZone`` in the ``tz`` cookie); this middleware makes
it the current zone of each request, so templates show deadlines in it and forms read the times an
instructor types in it. Without the cookie, or with a name that is no zone, times are in UTC
(the settings' ``TIME_ZONE``) and the page says so."""

from __future__ import annotations

from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils import timezone

COOKIE = "tz"


def zone_named(name: str | None):
    if not name or len(name) > 64:
        return None
    name = unquote(name)  # "Asia%2FKolkata", as some browsers' scripts write it
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


class TimezoneMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = zone_named(request.COOKIES.get(COOKIE))
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
