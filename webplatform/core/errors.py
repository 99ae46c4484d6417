"""Clear answers while something is away or wrong.

- A request that meets a database that cannot be reached gets 503 with ``Retry-After``, not a
  bare 500: what failed is the site's, and it says when to try again.
- A client that asked for JSON (``Accept: application/json``, as the page's script and API
  clients send) gets its errors as JSON ``{"error": ...}``, whatever the status: 400, 403, 404,
  500, 503; a browser gets Django's pages as before.
The 503 page reads nothing from the database (it is what is away): no user, no session. A form
refused by Django's CSRF check is said in the site's layout (``csrf_failure``,
settings.CSRF_FAILURE_VIEW): Django's own view renders the template without the request, and the
bar would say "Log in" to someone signed in."""

from __future__ import annotations

import sys

from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.views import defaults

from .database import is_unavailable
from .http import wants_json
from .params import MALFORMED_FORM, unreadable

RETRY_AFTER_S = 10
UNAVAILABLE_TEXT = (
    f"The site's database is unavailable for a moment, so this was not saved. Nothing you sent "
    f"before is lost. Try again in {RETRY_AFTER_S} seconds."
)


def unavailable(request) -> HttpResponse:
    """503 with Retry-After, as JSON or as a page."""
    if wants_json(request):
        response = JsonResponse({"error": UNAVAILABLE_TEXT, "unavailable": "database"}, status=503)
    else:
        # Without the request, as the 500 page: its context would read the session and the user.
        response = HttpResponse(loader.get_template("503.html").render({"retry_after_s": RETRY_AFTER_S}), status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


class DatabaseUnavailableMiddleware:
    """Turns a view's database-unavailable error into 503 (other errors go on to handler500)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        return unavailable(request) if is_unavailable(exception) else None


class BadInputMiddleware:
    """A path, query string or form that cannot be read as text (a NUL byte, bytes that are not
    UTF-8) is a 400 before any view: no view has to think of it, and it never reaches the
    database, where PostgreSQL would refuse it with a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        why = unreadable(request)
        if why is not None:
            if request.path.startswith("/api/"):  # the API's answer to input it cannot take, in its own form
                return JsonResponse(
                    {"code": "invalid_request", "message": f"The request cannot be read: {why}."},
                    status=400 if why == MALFORMED_FORM else 422,
                )
            return bad_request(request)
        return self.get_response(request)


def server_error(request):
    """handler500: also what an error outside any view (a session saved after it) comes to."""
    if is_unavailable(sys.exc_info()[1]):
        return unavailable(request)
    if wants_json(request):
        return JsonResponse(
            {
                "error": "The site failed while answering this request; it has been logged. Try "
                "again, and if it keeps failing, tell the course staff."
            },
            status=500,
        )
    return defaults.server_error(request)


def not_found(request, exception=None):
    if wants_json(request):
        return JsonResponse({"error": "There is nothing at this address, or it is not yours to see."}, status=404)
    return defaults.page_not_found(request, exception)


def permission_denied(request, exception=None):
    if wants_json(request):
        return JsonResponse({"error": "Your account may not do this."}, status=403)
    return defaults.permission_denied(request, exception)


def bad_request(request, exception=None):
    if isinstance(exception, RequestDataTooBig):
        return refusal(request, 413)
    if wants_json(request):
        return JsonResponse(
            {"error": "The request could not be understood: reload the page and try again."}, status=400
        )
    return defaults.bad_request(request, exception)


def csrf_failure(request, reason=""):
    if wants_json(request):
        return JsonResponse(
            {
                "error": "The request came without the site's security token (CSRF): reload the page "
                "and send it again.",
                "code": "csrf_failed",
            },
            status=403,
        )
    return render(request, "403_csrf.html", status=403)


REFUSALS = {
    405: "This address does not take a {method} request{allowed}.",
    413: "The request is larger than the site accepts.",
}


def refusal(request, status: int, response=None) -> HttpResponse:
    """405 and 413 said as the rest: JSON to a client that asked for it, else a page of the site."""
    allow = response.get("Allow", "") if response is not None else ""
    message = REFUSALS[status].format(method=request.method, allowed=f" (it takes {allow})" if allow else "")
    if wants_json(request):
        answer = JsonResponse({"error": message}, status=status)
    else:
        answer = render(request, f"{status}.html", {"message": message}, status=status)
    if allow:
        answer["Allow"] = allow
    return answer


# What a page's refusal says to a JSON client when its view gave no words of its own (``with_error``).
PAGE_REFUSALS = {
    400: "The request could not be understood: reload the page and try again.",
    403: "Your account may not do this.",
    404: "There is nothing at this address, or it is not yours to see.",
    409: "This conflicts with the current state of what it changes: reload the page.",
    429: "Too many requests of this kind for now: wait and try again.",
}
KEPT_OUT = ("content-type", "content-length")


class JsonPageErrorsMiddleware:
    """A page view's refusal (any 4xx: a form refused, an id not yours, a limit reached) is the
    site's page to a browser and ``{"error": ...}`` to a JSON client, with the same status and
    headers (``Retry-After``, ``Allow``, cookies): the view's own words when it gave them
    (``core.http.with_error``), else the status's. The API answers in its own shape
    (``api.errors.JsonErrorsMiddleware``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            400 <= response.status_code < 500
            and wants_json(request)
            and not request.path.startswith("/api/")
            and not response.streaming
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            message = getattr(response, "error_message", None) or PAGE_REFUSALS.get(
                response.status_code, response.reason_phrase
            )
            answer = JsonResponse({"error": message}, status=response.status_code)
            for header, value in response.items():
                if header.lower() not in KEPT_OUT:
                    answer[header] = value
            answer.cookies = response.cookies
            return answer
        return response


class RefusalsMiddleware:
    """Django's ``require_POST`` and the like answer 405 with an empty body; here it becomes the
    site's page or JSON, with its ``Allow`` (the API's are JSON already: api.errors)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 405 and not response.content and not request.path.startswith("/api/"):
            return refusal(request, 405, response)
        return response
