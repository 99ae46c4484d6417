"""Failed sign-ins, counted so that guessing passwords is slowed (``services.sign_in_failed``), and
the e-mail addresses accounts proved they read."""

from django.conf import settings
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


class VerifiedEmail(models.Model):
    """The e-mail address an account proved it reads: the link mailed at sign-up was opened. The
    account's address is verified while it is still this one (changed in the admin, it is not any
    more). The site sends nothing but the verification mail to an address not verified: no
    password-reset mail, so an account that typed another person's address cannot have mail sent
    there. Accounts made by the operator (demo users, ``create_user``) are verified as made."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verified_email")
    email = models.EmailField(max_length=254)
    verified_at = models.DateTimeField()

    def __str__(self):
        return f"{self.user_id}: {self.email}"
