"""The site's instructor role (the ``instructors`` group: instructors start courses and author
problems), granted and taken away by staff, on the staff page or with ``manage.py
grant_instructor``. Every change is logged (who, to whom, by whom) for the site's audit trail."""

from __future__ import annotations

import logging

from django.contrib.auth.models import Group
from django.db import transaction

from webplatform.accounts.selectors import INSTRUCTORS_GROUP

logger = logging.getLogger(__name__)


@transaction.atomic
def grant_instructor(*, user, by: str) -> bool:
    """Makes ``user`` an instructor of the site; ``by``: who did it (a staff username, or the
    command). Returns whether anything changed (False: they were one already)."""
    group, _ = Group.objects.get_or_create(name=INSTRUCTORS_GROUP)
    if user.groups.filter(pk=group.pk).exists():
        return False
    user.groups.add(group)
    logger.info("instructor role granted to %s (user %s) by %s", user.username, user.pk, by)
    return True


@transaction.atomic
def revoke_instructor(*, user, by: str) -> bool:
    """Takes the instructor role away from ``user``: they start no more courses and author no more
    problems (the courses they teach keep them as instructors; staff stay instructors as staff).
    Returns whether anything changed (False: they were not one)."""
    group = Group.objects.filter(name=INSTRUCTORS_GROUP).first()
    if group is None or not user.groups.filter(pk=group.pk).exists():
        return False
    user.groups.remove(group)
    logger.info("instructor role revoked from %s (user %s) by %s", user.username, user.pk, by)
    return True
