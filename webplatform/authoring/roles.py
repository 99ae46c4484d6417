"""The instructor role: the ``instructors`` group, holding the authoring permissions.

Instructors write, validate, import and export their own problems and publish them; staff may do
all of it to every problem. ``services.grant_instructor_permissions`` brings the group up to
date after every ``migrate``, so a fresh database (and each test database) has it without a
manual step.
"""

from webplatform.accounts.selectors import AUTHOR_PERMISSION

AUTHOR = AUTHOR_PERMISSION
PUBLISH = "authoring.publish_problems"
INSTRUCTOR_PERMISSIONS = (AUTHOR, PUBLISH)
