"""Writes about users."""
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from .selectors import INSTRUCTORS_GROUP


@transaction.atomic
def create_user(*, username: str, password: str, instructor: bool = False):
    user = get_user_model().objects.create_user(username=username, password=password)
    if instructor:
        user.groups.add(Group.objects.get_or_create(name=INSTRUCTORS_GROUP)[0])
    return user


@transaction.atomic
def ensure_demo_user(*, username: str, password: str, instructor: bool = False):
    """Creates the user, or resets the password of an existing one (so the printed login works)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        return create_user(username=username, password=password, instructor=instructor)
    user.set_password(password)
    user.save(update_fields=["password"])
    if instructor:
        user.groups.add(Group.objects.get_or_create(name=INSTRUCTORS_GROUP)[0])
    return user
