"""Small helpers of views."""

import hmac

from django.conf import settings


def wants_json(request) -> bool:
    """The page's script asked (``Accept: application/json``) rather than a browser without it.
    (Under /api/ every error is JSON whoever answered it: ``api.errors.JsonErrorsMiddleware``.)"""
    return "application/json" in request.headers.get("Accept", "")


def with_error(response, message: str):
    """``response``, a page's refusal (4xx), said as ``message`` to a JSON client: what
    ``core.errors.JsonPageErrorsMiddleware`` answers it instead of the page."""
    response.error_message = message
    return response


def is_operator(request, *, session: bool = True) -> bool:
    """Staff signed in, or a scraper sending ``Authorization: Bearer <METRICS_TOKEN>``: who may read
    the site's internals (metrics, why a part is down). ``session=False``: the token only (the
    session is in the database, which may be what is down)."""
    token = settings.METRICS_TOKEN
    sent = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
        return True
    if not session:
        return False
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated and user.is_staff)
