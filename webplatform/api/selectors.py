"""Reads of API tokens."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import ApiToken
from .tokens import hash_token


def tokens_of(*, user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


def token_record(*, token: str) -> ApiToken | None:
    """The stored token matching ``token``, with its user, if that user may still sign in."""
    try:
        return ApiToken.objects.select_related("user").get(key_hash=hash_token(token), user__is_active=True)
    except ApiToken.DoesNotExist:
        return None
