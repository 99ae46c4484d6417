"""``user.has_perm`` in one small query instead of two.

Django's ``ModelBackend`` answers a first ``has_perm`` by loading every permission the user
holds, their own and their groups', in two ORM queries with joins: building them was a quarter
of the CPU of a leaderboard page (`make bench`), and every page asks one question (may this visitor
author problems? the bar's Authoring link). Here that question is one EXISTS over the same
tables, remembered on the user object for the rest of the request, as Django remembers its own.
The answer is the backend's: read from the database on each request, so a permission granted or
taken away shows on the next page."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.context_processors import PermLookupDict, PermWrapper
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from . import BACKEND_PATH

_MEMO = "_one_perm_cache"  # on the user object, beside ModelBackend's _perm_cache


def _query() -> str:
    user_model = get_user_model()
    held_by_user = user_model.user_permissions.through._meta
    held_by_group = Group.permissions.through._meta
    membership = user_model.groups.through._meta
    return (
        f"SELECT 1 FROM {Permission._meta.db_table} p"
        f" JOIN {ContentType._meta.db_table} ct ON ct.id = p.content_type_id"
        " WHERE ct.app_label = %s AND p.codename = %s AND ("
        f"EXISTS (SELECT 1 FROM {held_by_user.db_table} up WHERE up.permission_id = p.id AND up.user_id = %s)"
        f" OR EXISTS (SELECT 1 FROM {held_by_group.db_table} gp JOIN {membership.db_table} ug"
        " ON ug.group_id = gp.group_id WHERE gp.permission_id = p.id AND ug.user_id = %s)) LIMIT 1"
    )


def has_permission(user, perm: str) -> bool:
    """What ``user.has_perm(perm)`` answers (an active superuser holds every permission, an
    inactive user or a visitor none), asked of the database in one query."""
    if list(settings.AUTHENTICATION_BACKENDS) != [BACKEND_PATH]:
        return user.has_perm(perm)  # another backend may grant it: ask them all, as Django does
    if not user.is_active:
        return False
    if user.is_superuser:
        return True
    if hasattr(user, "_perm_cache"):  # ModelBackend has loaded them all already
        return perm in user._perm_cache
    memo = user.__dict__.setdefault(_MEMO, {})
    if perm not in memo:
        app_label, dot, codename = perm.partition(".")
        if not dot:
            memo[perm] = False  # ModelBackend's names are "app_label.codename"
        else:
            with connection.cursor() as cursor:
                cursor.execute(_query(), [app_label, codename, user.pk, user.pk])
                memo[perm] = cursor.fetchone() is not None
    return memo[perm]


class _OnePermLookup(PermLookupDict):
    def __getitem__(self, perm_name):
        return has_permission(self.user, f"{self.app_label}.{perm_name}")


class OnePermWrapper(PermWrapper):
    """Templates' ``perms``, each ``perms.app.codename`` asked with ``has_permission``."""

    def __getitem__(self, app_label):
        return _OnePermLookup(self.user, app_label)
