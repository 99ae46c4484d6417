"""Reads about users."""
INSTRUCTORS_GROUP = "instructors"
# Granted to INSTRUCTORS_GROUP by the authoring app (see webplatform/authoring/roles.py).
AUTHOR_PERMISSION = "authoring.author_problems"


def is_instructor(user) -> bool:
    """Instructors (the group's permission) and staff: they author problems and see every reference."""
    if not user.is_authenticated:
        return False
    return user.is_staff or user.has_perm(AUTHOR_PERMISSION)
