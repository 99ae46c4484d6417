"""Reads about users."""

import hashlib
import unicodedata

from django.utils import timezone

from .models import SignInFailures
from .permissions import has_permission

INSTRUCTORS_GROUP = "instructors"
# Granted to INSTRUCTORS_GROUP by the authoring app (see webplatform/authoring/roles.py).
AUTHOR_PERMISSION = "authoring.author_problems"


def is_instructor(user) -> bool:
    """Instructors (the group's permission) and staff: they author problems and see every reference."""
    if not user.is_authenticated:
        return False
    return user.is_staff or has_permission(user, AUTHOR_PERMISSION)


def throttle_keys(*, username: str | None, address: str | None) -> list[str]:
    """What a sign-in attempt is counted under: the account it names, read as the sign-in form
    reads it (stripped, NFKC: "ａｄａ" is "ada", so another spelling is no fresh count) and the
    address it comes from."""
    username = unicodedata.normalize("NFKC", (username or "").strip())
    keys = [f"user:{username[:150]}"] if username else []
    return keys + ([f"addr:{address[:64]}"] if address else [])


def token_throttle_keys(*, address: str | None) -> list[str]:
    """What an API token check is counted under: its address, apart from the sign-in page's."""
    return [f"token:{address[:64]}"] if address else []


def reset_mail_keys(*, email: str, address: str | None) -> dict[str, str]:
    """What a password-reset request is counted under, with the limit of
    settings.PASSWORD_RESET_THROTTLE each has: the address it asks for (hashed: the table holds
    no e-mail) and the client's address."""
    normalized = unicodedata.normalize("NFKC", (email or "").strip()).casefold()
    keys = {f"reset-mail:{hashlib.sha256(normalized.encode('utf-8', 'surrogatepass')).hexdigest()}": "PER_EMAIL"}
    if address:
        keys[f"reset-addr:{address[:64]}"] = "PER_ADDRESS"
    return keys


def sign_up_key(*, address: str) -> str:
    """What a sign-up is counted under: the client's address."""
    return f"signup-addr:{address[:64]}"


def locked_for(*, keys: list[str], now=None) -> int:
    """Seconds until every one of ``keys`` may try again (0: none is locked)."""
    now = now or timezone.now()
    until = (
        SignInFailures.objects.filter(key__in=keys, locked_until__gt=now)
        .order_by("-locked_until")
        .values_list("locked_until", flat=True)
        .first()
    )
    return 0 if until is None else max(1, int((until - now).total_seconds() + 0.999))
