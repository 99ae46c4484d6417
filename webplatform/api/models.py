"""Personal API tokens: what a terminal or a notebook signs in with (``Authorization: Bearer``).

Only a SHA-256 hash of a token is stored; the token itself is shown once, when it is created. A
token is 32 random bytes, so a fast hash is enough: nobody can guess one to match a stolen
hash, and a slow password hash would only cost every API request its time."""

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=64)
    # The token's first characters, shown beside its name so that its owner can tell which one a
    # script holds; far too short to use.
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)  # sha256 hex of the whole token
    created_at = models.DateTimeField(auto_now_add=True)
    # Updated at most once a minute per token (see services.LAST_USED_RESOLUTION_S).
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"token {self.name!r} of user {self.user_id}"
