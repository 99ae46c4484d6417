"""Every error of the API is JSON: ``{"code": ..., "message": ...}``, where ``code`` is stable
(clients branch on it) and ``message`` is for a person. Refusals of the site's services keep
their own codes (``rate_limited``, ``source_too_large`` ...); the responses that Django or the
framework produce before a view runs (an unknown path, a wrong method, a body too large, a
crash) are rewritten into the same shape by ``JsonErrorsMiddleware``."""

from __future__ import annotations

import json
from contextlib import contextmanager

from django.core.exceptions import RequestDataTooBig, ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as RequestInvalid

from webplatform.core.database import UNAVAILABLE
from webplatform.core.errors import RETRY_AFTER_S, UNAVAILABLE_TEXT
from webplatform.submissions.services import RateLimited

API_PREFIX = "/api/"
# Refusals of the services (``ValidationError.code``) and the HTTP status each gets here.
STATUS_OF_CODE = {
    "source_too_large": 413,
    "rate_limited": 429,
    "unknown_version": 404,  # the version named does not exist
}
REFUSED = "refused"  # a refusal the service gave no code of its own


class ErrorDetail(Schema):
    location: list[str | int]
    message: str


class Error(Schema):
    code: str
    message: str
    retry_after_s: int | None = None  # with ``rate_limited`` (also the Retry-After header)
    errors: list[ErrorDetail] | None = None  # with ``invalid_request``: one entry per bad field


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after_s: int | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after_s = status, code, message, retry_after_s


def _api_error(request, exc: ApiError) -> JsonResponse:
    response = error_response(exc.status, exc.code, exc.message, retry_after_s=exc.retry_after_s)
    if exc.retry_after_s is not None:
        response["Retry-After"] = str(exc.retry_after_s)
    return response


@contextmanager
def missing(message: str):
    """A selector's 404 (``Http404``) answered with ``message``, which says what is missing in
    the client's terms."""
    try:
        yield
    except Http404:
        raise ApiError(404, "not_found", message) from None


def error_response(status: int, code: str, message: str, **extra) -> JsonResponse:
    body = {"code": code, "message": message, **{k: v for k, v in extra.items() if v is not None}}
    return JsonResponse(body, status=status)


def refusal_response(exc: ValidationError) -> JsonResponse:
    """A service's refusal: its message, its code, and for the rate limit when to come back."""
    code = exc.code if getattr(exc, "code", None) else REFUSED
    message = " ".join(exc.messages)
    if isinstance(exc, RateLimited):
        response = error_response(429, code, message, retry_after_s=exc.retry_after_s)
        response["Retry-After"] = str(exc.retry_after_s)
        return response
    return error_response(STATUS_OF_CODE.get(code, 400), code, message)


def _location(loc) -> list[str | int]:
    """Where a field is, as a client names it: ``["body", "source"]``, ``["query", "page"]``
    (the framework puts the view's parameter name second: ``body``, ``filters``)."""
    parts = [part if isinstance(part, int) else str(part) for part in loc]
    return parts[:1] + parts[2:] if len(parts) > 2 else parts


def _invalid_request(request, exc: RequestInvalid) -> JsonResponse:
    details = [
        {"location": _location(error.get("loc", ())), "message": error.get("msg", "invalid")} for error in exc.errors
    ]
    where = ", ".join(".".join(str(p) for p in d["location"]) for d in details) or "the request"
    return error_response(422, "invalid_request", f"The request does not match the schema at: {where}.", errors=details)


def _unavailable(request, exc) -> JsonResponse:
    """The database is away: 503 with when to try again (as the site's pages answer)."""
    response = error_response(503, "unavailable", UNAVAILABLE_TEXT, retry_after_s=RETRY_AFTER_S)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def install_handlers(api: NinjaAPI) -> None:
    api.add_exception_handler(ApiError, _api_error)
    for error in UNAVAILABLE:
        api.add_exception_handler(error, _unavailable)
    api.add_exception_handler(ValidationError, lambda request, exc: refusal_response(exc))
    api.add_exception_handler(RequestInvalid, _invalid_request)
    # Operations name what is missing (``missing``); this is for a 404 that nothing named.
    api.add_exception_handler(
        Http404,
        lambda request, exc: error_response(404, "not_found", "There is nothing here, or it is not yours to see."),
    )
    api.add_exception_handler(
        AuthenticationError,
        lambda request, exc: error_response(
            401,
            "not_authenticated",
            "This needs an API token: send it as 'Authorization: Bearer <token>' (create one on your account page).",
        ),
    )
    api.add_exception_handler(
        RequestDataTooBig,
        lambda request, exc: error_response(
            413, "request_too_large", "The request body is larger than the site accepts."
        ),
    )
    # The framework's own refusals; the one a client meets is a body that is not JSON.
    api.add_exception_handler(
        HttpError,
        lambda request, exc: error_response(
            exc.status_code,
            "invalid_body" if exc.status_code == 400 else "http_error",
            f"{exc}: send a JSON object with 'Content-Type: application/json'." if exc.status_code == 400 else str(exc),
        ),
    )


# What Django itself answers before (or instead of) a view of ours, in the API's words.
FALLBACK = {
    400: ("bad_request", "The request could not be read."),
    404: ("not_found", "There is no such path in the API: see /api/docs for the operations."),
    405: ("method_not_allowed", "This path does not take that method."),
    500: ("internal_error", "The server failed on this request; it is not your fault. Try again later."),
}


class JsonErrorsMiddleware:
    """Error responses under /api/ that are not JSON yet (Django's 404 page, a 405, a 500 page)
    become ``{"code", "message"}`` with their status and headers (``Allow``, ``Retry-After``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            request.path.startswith(API_PREFIX)
            and response.status_code >= 400
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            code, message = FALLBACK.get(response.status_code, ("http_error", response.reason_phrase))
            replaced = HttpResponse(
                json.dumps({"code": code, "message": message}),
                status=response.status_code,
                content_type="application/json",
            )
            for header in ("Allow", "Retry-After"):
                if response.has_header(header):
                    replaced[header] = response[header]
            return replaced
        return response
