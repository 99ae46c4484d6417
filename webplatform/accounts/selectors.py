"""Reads about users."""

import hashlib
import unicodedata

from django.contrib.auth import get_user_model
from django.utils import timezone

from .models import SignInFailures, VerifiedEmail
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


def email_taken(*, email: str, other_than=None) -> bool:
    """Whether an account (other than ``other_than``) has this e-mail address, however its case is
    spelled: one address belongs to one account."""
    email = (email or "").strip()
    if not email:
        return False
    found = get_user_model().objects.filter(email__iexact=email)
    if other_than is not None:
        found = found.exclude(pk=other_than.pk)
    return found.exists()


def verified_user_ids(*, users) -> set[int]:
    """Which of ``users`` have their current e-mail address verified."""
    users = list(users)
    rows = VerifiedEmail.objects.filter(user__in=users).values_list("user_id", "email")
    current = {user.pk: user.email for user in users}
    return {user_id for user_id, email in rows if email and current.get(user_id) == email}


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
