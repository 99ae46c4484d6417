"""Problems of a course: a draft published for its members only, or a problem kept for it made
public."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from webplatform.authoring.services import publish_draft
from webplatform.catalog.models import ProblemVersion
from webplatform.catalog.services import make_public

from ..models import Course
from .archiving import check_open


def publish_to_course(*, course: Course, draft) -> ProblemVersion:
    """The draft, validated, published for this course's members only."""
    check_open(course)
    return publish_draft(draft=draft, audience=course.audience).version


def publish_to_everyone(*, course: Course, problem) -> bool:
    """A problem kept for this course becomes public."""
    check_open(course)
    if problem.audience_id != course.audience_id:
        raise ValidationError("this problem is not kept for this course")
    return make_public(problem=problem)
