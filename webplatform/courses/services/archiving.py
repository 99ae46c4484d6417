"""An archived course changes no more: archiving and reopening one, and the check every other
write about a course makes first."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils import timezone

from ..models import Course


def check_open(course: Course) -> None:
    """An archived course changes no more: every write about it is refused with this."""
    if course.archived_at is not None:
        raise ValidationError(
            "This course is archived: it is read-only (its gradebooks and CSVs stay "
            "available). Reopen it on its page to change it.",
            code="archived",
        )


def archive_course(*, course: Course, archived: bool) -> Course:
    """Archives the course (read-only from now on) or reopens it."""
    course.archived_at = timezone.now() if archived else None
    Course.objects.filter(pk=course.pk).update(archived_at=course.archived_at)
    return course
