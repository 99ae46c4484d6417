"""Writes of API tokens: create (the token is returned once, never stored), revoke, and the
last-used time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .models import ApiToken
from .tokens import hash_token, new_token, shown_prefix

MAX_TOKENS_PER_USER = 20
MAX_NAME_LENGTH = ApiToken._meta.get_field("name").max_length
# A request writes the last-used time only when the stored one is older than this: without it
# every API call would be a write (and on SQLite take the one write lock).
LAST_USED_RESOLUTION_S = 60


@dataclass(frozen=True)
class CreatedToken:
    token: str  # shown to the user once; only its hash is kept
    record: ApiToken


def create_token(*, user, name: str) -> CreatedToken:
    """A new token for ``user`` named ``name`` (a reminder of where it is used: "laptop",
    "colab"). Refused (``ValidationError``) without a name, with a name too long, or past
    ``MAX_TOKENS_PER_USER`` tokens."""
    name = " ".join((name or "").split())
    if not name:
        raise ValidationError(
            "Give the token a name, such as the machine or notebook that will use it.", code="name_required"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise ValidationError(
            f"The name is {len(name)} characters long; {MAX_NAME_LENGTH} at most.", code="name_too_long"
        )
    with transaction.atomic():
        if ApiToken.objects.filter(user=user).count() >= MAX_TOKENS_PER_USER:
            raise ValidationError(
                f"You have {MAX_TOKENS_PER_USER} tokens, the most allowed. Revoke one you no longer use first.",
                code="too_many_tokens",
            )
        token = new_token()
        record = ApiToken.objects.create(user=user, name=name, prefix=shown_prefix(token), key_hash=hash_token(token))
    return CreatedToken(token, record)


def revoke_token(*, user, token_id: int) -> bool:
    """Deletes one of ``user``'s tokens (at once: the next request with it is refused). False
    when ``user`` has no such token (someone else's token is not theirs to revoke)."""
    deleted, _ = ApiToken.objects.filter(pk=token_id, user=user).delete()
    return bool(deleted)


def revoke_all_tokens(*, user) -> int:
    """Deletes every token of ``user`` (their password was reset); how many there were."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted


def mark_used(*, token: ApiToken) -> None:
    """Records that ``token`` was just used, at most once per ``LAST_USED_RESOLUTION_S``."""
    now = timezone.now()
    stale = now - timedelta(seconds=LAST_USED_RESOLUTION_S)
    if token.last_used_at is not None and token.last_used_at > stale:
        return
    ApiToken.objects.filter(Q(last_used_at__isnull=True) | Q(last_used_at__lte=stale), pk=token.pk).update(
        last_used_at=now
    )
