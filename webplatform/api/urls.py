"""The account page's API tokens (``/accounts/tokens/``); the API itself is mounted at /api/
by the project's urls (``api.api.urls``)."""
from django.urls import path

from . import pages

app_name = "tokens"
urlpatterns = [
    path("", pages.tokens, name="list"),
    path("<int:token_id>/revoke/", pages.revoke, name="revoke"),
]
