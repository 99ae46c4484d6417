"""The instructor role: the ``instructors`` group, holding the authoring permissions.

Instructors write, validate, import and export their own problems and publish them; staff may do
all of it to every problem. The group is brought up to date after every ``migrate``, so a fresh
database (and each test database) has it without a manual step.
"""
from webplatform.accounts.selectors import AUTHOR_PERMISSION, INSTRUCTORS_GROUP

AUTHOR = AUTHOR_PERMISSION
PUBLISH = "authoring.publish_problems"
INSTRUCTOR_PERMISSIONS = (AUTHOR, PUBLISH)


def grant_instructor_permissions(sender, apps, using="default", **kwargs):
    """post_migrate receiver: the instructors group exists and holds the authoring permissions."""
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    group, _ = group_model.objects.using(using).get_or_create(name=INSTRUCTORS_GROUP)
    codenames = [name.split(".", 1)[1] for name in INSTRUCTOR_PERMISSIONS]
    permissions = permission_model.objects.using(using).filter(
        content_type__app_label="authoring", codename__in=codenames)
    group.permissions.add(*permissions)
