"""Failed sign-ins, counted so that guessing passwords is slowed (``services.sign_in_failed``)."""

from django.db import models


class SignInFailures(models.Model):
    """Wrong passwords (or API tokens) under one key, an account's username or a client's
    address, since ``since``. At ``settings.SIGN_IN_THROTTLE["FAILURES"]`` within the window the
    key is locked until ``locked_until``: nobody signs in under it then, right password or not.
    In the database rather than the cache: every web process sees it, and it works while Redis is
    away."""

    key = models.CharField(max_length=200, unique=True)
    failures = models.PositiveIntegerField(default=0)
    since = models.DateTimeField()
    locked_until = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.key}: {self.failures}"
