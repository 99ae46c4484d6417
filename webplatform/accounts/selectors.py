"""Reads about users."""
INSTRUCTORS_GROUP = "instructors"


def is_instructor(user) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_superuser or user.groups.filter(name=INSTRUCTORS_GROUP).exists()
