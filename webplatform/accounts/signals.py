"""Failed password checks, counted wherever they happen: Django's ``authenticate`` sends
``user_login_failed`` for every refusal (the site's sign-in page, the admin's, any other caller);
``services.password_reset`` is the one this app sends for the apps above."""

from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver

from . import backends, services


@receiver(user_login_failed, dispatch_uid="accounts.count_failure")
def count_failure(sender, credentials, request=None, **kwargs):
    if request is not None and getattr(request, backends.LOCKED_ATTRIBUTE, 0):
        return  # refused because of a lock: the lock is the penalty, not a further failure
    wait = services.sign_in_failed(keys=backends.keys_of(request, (credentials or {}).get("username")))
    if wait and request is not None:
        setattr(request, backends.LOCKED_ATTRIBUTE, wait)
