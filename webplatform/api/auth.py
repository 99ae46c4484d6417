"""Who an API request is: the owner of the token in ``Authorization: Bearer <token>``.

The API takes tokens only, never the browser's session cookie, so no API call can be made
for a signed-in browser by another site (no CSRF), and a token opens nothing but the API: the
pages and the admin still ask for a password. A token acts as its user with exactly the user's
permissions (an instructor's token sees references as the instructor does in the browser).

``bearer`` is for operations that need a user. ``bearer_or_anonymous`` is for what the site
shows to visitors too (problems, leaderboards): no header means an anonymous visitor, but a
header with a wrong or revoked token is refused, never silently ignored."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from ninja.security import HttpBearer

from webplatform.accounts import selectors as accounts
from webplatform.accounts import services as sign_ins

from .errors import ApiError
from .selectors import token_record
from .services import mark_used


def _too_many(seconds: int) -> ApiError:
    return ApiError(
        429,
        "too_many_failures",
        f"Too many invalid API tokens from this address: invalid ones are refused without a "
        f"check for {seconds} seconds. Create a token on your account page.",
        retry_after_s=seconds,
    )


def _refuse() -> ApiError:
    return ApiError(
        401,
        "invalid_token",
        "This API token is not valid: it was revoked, mistyped, or its account is disabled. "
        "Create a new one on your account page.",
    )


class BearerToken(HttpBearer):
    """``anonymous=True``: a request without an Authorization header is an anonymous visitor
    (one class either way, so the schema names a single security scheme)."""

    def __init__(self, *, anonymous: bool = False):
        super().__init__()
        self.anonymous = anonymous

    def __call__(self, request):
        header = request.headers.get(self.header)
        if not header and self.anonymous:
            request.user = AnonymousUser()
            return request.user
        if header and not header.lower().startswith("bearer "):
            raise ApiError(
                401, "invalid_token", "The Authorization header must read 'Bearer <token>' with an API token."
            )
        return super().__call__(request)

    def authenticate(self, request, token: str):
        record = token_record(token=token.strip())
        if record is None:
            # Guessing tokens is slowed as guessing passwords is: invalid ones count under the
            # client's address, and at the limit they get 429 with Retry-After. A valid token
            # still works meanwhile (it cannot be guessed: 256 random bits), which keeps the one
            # read per request of the valid ones.
            keys = accounts.token_throttle_keys(address=request.META.get("REMOTE_ADDR"))
            wait = accounts.locked_for(keys=keys) or sign_ins.sign_in_failed(keys=keys)
            raise _too_many(wait) if wait else _refuse()
        mark_used(token=record)
        request.user = record.user  # what the site's own code reads
        return record.user


bearer = BearerToken()
bearer_or_anonymous = BearerToken(anonymous=True)
# For the schema of the operations that take ``bearer_or_anonymous``: the token is optional
# (added to the token's own entry, which the framework writes).
OPTIONAL_TOKEN = {"security": [{}]}
