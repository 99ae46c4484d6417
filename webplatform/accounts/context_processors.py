"""Context of every page."""

from django.contrib.auth.models import AnonymousUser

from .permissions import OnePermWrapper


def perms(request):
    """``perms`` answered in one query per question (``permissions.has_permission``). Listed after
    Django's ``auth`` processor (which the admin requires), whose ``perms`` it replaces."""
    # request.user stays lazy (Django's processor does the same): a page that shows no user loads none.
    return {"perms": OnePermWrapper(request.user if hasattr(request, "user") else AnonymousUser())}
