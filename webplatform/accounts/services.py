"""Writes about users, and the count of failed sign-ins."""

import math
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from .models import SignInFailures, VerifiedEmail
from .selectors import INSTRUCTORS_GROUP, email_taken, sign_up_key

EMAIL_TOKEN_SALT = "accounts.verify-email"


@transaction.atomic
def create_user(
    *, username: str, password: str, instructor: bool = False, email: str = "", email_verified: bool = True
):
    """An account. Its e-mail address is taken as verified unless ``email_verified`` is False (the
    sign-up page's: verified when its owner opens the link mailed to it); the operator's accounts
    (demo users, tests, management commands) are vouched for by the operator."""
    user = get_user_model().objects.create_user(
        username=username, password=password, email=get_user_model().objects.normalize_email(email)
    )
    if instructor:
        user.groups.add(Group.objects.get_or_create(name=INSTRUCTORS_GROUP)[0])
    if user.email and email_verified:
        VerifiedEmail.objects.create(user=user, email=user.email, verified_at=timezone.now())
    return user


class EmailTaken(ValueError):
    """Another account has this e-mail address already (one address belongs to one account)."""

    def __init__(self):
        super().__init__(
            "Another account uses this e-mail address already. If it is yours, reset that account's "
            "password from the sign-in page."
        )


def email_token(*, user) -> str:
    """What the verification link carries: the account and the address, signed, dated."""
    return signing.dumps({"user": user.pk, "email": user.email}, salt=EMAIL_TOKEN_SALT, compress=True)


def send_email_verification(*, user, link: str) -> None:
    """The one mail the site sends to an address not verified yet: the link that verifies it (after
    the account is stored: the sign-up's own transaction is over)."""
    if not user.email:
        return
    days = max(1, settings.EMAIL_VERIFICATION_MAX_AGE_S // 86400)
    body = (
        f"Someone signed up for the Remat Arena account {user.get_username()} with this e-mail address.\n\n"
        f"To confirm that the address is yours, open this link (it works for {days} days):\n\n{link}\n\n"
        "Until then the site sends nothing else to this address (no password reset). "
        "If it was not you, ignore this e-mail: the address stays unconfirmed.\n"
    )
    send_mail("Confirm your e-mail address for Remat Arena", body, None, [user.email], fail_silently=True)


def verify_email(*, token: str):
    """Marks the address the link was mailed to as verified: the account, or None for a link that
    is forged, too old, or for an address the account no longer has."""
    try:
        claim = signing.loads(token, salt=EMAIL_TOKEN_SALT, max_age=settings.EMAIL_VERIFICATION_MAX_AGE_S)
    except signing.BadSignature:  # SignatureExpired included
        return None
    if not isinstance(claim, dict) or not isinstance(claim.get("user"), int) or not isinstance(claim.get("email"), str):
        return None
    user = get_user_model().objects.filter(pk=claim["user"], email=claim["email"]).exclude(email="").first()
    if user is None:
        return None
    VerifiedEmail.objects.update_or_create(user=user, defaults={"email": user.email, "verified_at": timezone.now()})
    return user


class SignUpsLimited(Exception):
    """Too many accounts made from one client address within the window; ``retry_after_s``: when
    the next may be made."""

    def __init__(self, retry_after_s: int):
        minutes = max(1, math.ceil(retry_after_s / 60))
        super().__init__(
            f"Too many accounts were created from your network address in the last hour. Try again in "
            f"{minutes} minute{'s' if minutes != 1 else ''}, or ask your instructor to add you to the course."
        )
        self.retry_after_s = retry_after_s


def sign_up(*, username: str, password: str, email: str = "", address: str | None, now=None):
    """A new account from the sign-up page, counted under the client's address: at most
    ``settings.SIGN_UP_THROTTLE["PER_ADDRESS"]`` within its window (0: no limit), then
    SignUpsLimited. Only accounts made count (a form with errors does not). Its e-mail address,
    if any, is not verified yet (``send_email_verification``); EmailTaken when another account has
    it."""
    rules = settings.SIGN_UP_THROTTLE
    now = now or timezone.now()
    limit, window = int(rules["PER_ADDRESS"]), timedelta(seconds=int(rules["WINDOW_S"]))
    with transaction.atomic():
        if address and limit > 0:
            # the row locked: two sign-ups at once from one address both count
            row, _ = SignInFailures.objects.select_for_update().get_or_create(
                key=sign_up_key(address=address), defaults={"since": now}
            )
            if row.since < now - window:
                row.failures, row.since = 0, now
            if row.failures >= limit:
                raise SignUpsLimited(max(1, math.ceil((row.since + window - now).total_seconds())))
            row.failures += 1
            row.save(update_fields=["failures", "since"])
        if email and email_taken(email=email):
            raise EmailTaken()
        return create_user(username=username, password=password, email=email, email_verified=False)


# Sent (``user``) once a password was set through a reset link, in the reset's transaction: what
# else lets anyone into the account (the API's tokens) is revoked by the apps that hold it
# (api.signals), since an account whose password was forgotten may have been taken.
password_reset = Signal()


def password_was_reset(*, user) -> None:
    """A password set through a reset link: every session signed in with the old one has ended
    already (Django checks each session's password hash), and the apps above revoke what else
    lets anyone in (``password_reset``: the API's tokens)."""
    password_reset.send(sender=user.__class__, user=user)


@transaction.atomic
def ensure_demo_user(*, username: str, password: str, instructor: bool = False):
    """Creates the user, or resets the password of an existing one (so the printed login works)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        return create_user(username=username, password=password, instructor=instructor)
    user.set_password(password)
    user.save(update_fields=["password"])
    if instructor:
        user.groups.add(Group.objects.get_or_create(name=INSTRUCTORS_GROUP)[0])
    return user


# Which limit of settings.SIGN_IN_THROTTLE a key's kind has (selectors.throttle_keys names them).
LIMIT_OF = {"user": "FAILURES", "addr": "ADDRESS_FAILURES", "token": "TOKEN_FAILURES"}


def sign_in_failed(*, keys: list[str], now=None) -> int:
    """Counts one failure under each key; returns the seconds of the lock this started (0: none).
    A count older than the window starts again; at its limit (an account's, or an address's,
    which is higher: a classroom shares one) the key is locked for LOCKOUT_S."""
    rules = settings.SIGN_IN_THROTTLE
    now = now or timezone.now()
    locked = 0
    for key in keys:
        limit = rules[LIMIT_OF[key.split(":", 1)[0]]]
        with transaction.atomic():  # the row locked: two processes' failures both count
            row, _ = SignInFailures.objects.select_for_update().get_or_create(key=key, defaults={"since": now})
            if row.since < now - timedelta(seconds=rules["WINDOW_S"]):
                row.failures, row.since = 0, now
            row.failures += 1
            if row.failures >= limit:
                # The lock is the penalty; the count starts again after it.
                row.locked_until, row.failures, row.since = now + timedelta(seconds=rules["LOCKOUT_S"]), 0, now
                locked = rules["LOCKOUT_S"]
            row.save()
    return locked


def sign_in_succeeded(*, keys: list[str]) -> None:
    """The account's count is forgotten (its owner knows the password); the address's is kept."""
    SignInFailures.objects.filter(key__in=[key for key in keys if key.startswith("user:")]).delete()


def reset_mail_allowed(*, keys: dict[str, str], now=None) -> bool:
    """Counts one password-reset request under each key (``selectors.reset_mail_keys``) and says
    whether a mail may go: none once any key has reached its limit within the window (a refused
    request is not counted, so the window ends on time)."""
    rules = settings.PASSWORD_RESET_THROTTLE
    now = now or timezone.now()
    with transaction.atomic():  # the rows locked, in one order: two requests' counts both land
        rows = []
        for key in sorted(keys):
            row, _ = SignInFailures.objects.select_for_update().get_or_create(key=key, defaults={"since": now})
            if row.since < now - timedelta(seconds=rules["WINDOW_S"]):
                row.failures, row.since = 0, now
            rows.append(row)
        if any(row.failures >= rules[keys[row.key]] for row in rows):
            return False
        for row in rows:
            row.failures += 1
            row.save(update_fields=["failures", "since"])
    return True
