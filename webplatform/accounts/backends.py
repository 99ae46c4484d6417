"""Django's ``ModelBackend``, loading the signed-in user with SQL written once (``AUTHENTICATION_BACKENDS``),
and checking every password through the sign-in throttle.

Every signed-in page loads its user; the ORM spent about 0.5 ms of CPU writing that one query
(``User.objects.get(pk=...)``) on each of them, the largest piece of a problem page left after
the first pass over the pages' CPU (`make bench`), against 0.1 ms to run it. The same query, written by the ORM once per
process (``core.prepared``). Passwords, permissions, the inactive check and the session hash
stay Django's.

The throttle is here, under ``django.contrib.auth.authenticate``, so that every way in that checks
a password (the site's sign-in page, the admin's, anything else calling ``authenticate``) counts
its failures in one place and obeys one lock: while the account or the address is locked, the
right password is refused too (``PermissionDenied``, which ``authenticate`` turns into a failure
without asking another backend). Failures are counted by ``signals.count_failure`` on Django's
``user_login_failed``, which ``authenticate`` sends for any refusal."""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model
from django.core.exceptions import PermissionDenied

from webplatform.core.prepared import prepared

from . import BACKEND_PATH, selectors, services

PATH = BACKEND_PATH  # what settings and every login() name
# Set on a request whose sign-in met a lock: the seconds until it ends (the views answer 429).
LOCKED_ATTRIBUTE = "sign_in_locked_s"

_user = prepared(lambda user_id: get_user_model()._default_manager.filter(pk=user_id))


def address_of(request) -> str | None:
    return request.META.get("REMOTE_ADDR") if request is not None else None


def keys_of(request, username) -> list[str]:
    """What a password check is counted under: the account it names and the address it comes from."""
    return selectors.throttle_keys(username=username if isinstance(username, str) else "", address=address_of(request))


class ModelBackend(backends.ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        keys = keys_of(request, username)
        wait = selectors.locked_for(keys=keys)
        if wait:
            if request is not None:
                setattr(request, LOCKED_ATTRIBUTE, wait)  # refused, and not counted again
            raise PermissionDenied("signing in is paused here")
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            services.sign_in_succeeded(keys=keys)
        return user

    def get_user(self, user_id):
        # user_id comes from django.contrib.auth.get_user, already read with the primary key's to_python
        found = _user(user_id=user_id)
        return found[0] if found and self.user_can_authenticate(found[0]) else None
