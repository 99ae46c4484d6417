"""The account page's API tokens (``/accounts/tokens/``); the API itself is mounted at /api/
by the project's urls (``api.api.urls``)."""

from django.urls import path

from webplatform.core import params  # noqa: F401 - registers <id:...>, an id that fits 64 bits

from . import pages

app_name = "tokens"
urlpatterns = [
    path("", pages.tokens, name="list"),
    path("<id:token_id>/revoke/", pages.revoke, name="revoke"),
]
