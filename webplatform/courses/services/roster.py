"""A course and its roster, kept in step with the course's group (which is what lets members see
the problems published to it): creating a course, join codes and joining, enrolling, a learning
platform's roster sync, co-instructors, removing members."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .. import codes
from ..models import MAX_STUDENT_ID, Course, JoinAttempt, Membership, Standing
from .archiving import check_open
from .standings import refresh_standings

Role = Membership.Role

# Wrong join codes allowed in an hour, per account and per address (a school's network shares one).
JOIN_FAILURES_PER_USER = 10


JOIN_FAILURES_PER_ADDRESS = 30


JOIN_WINDOW = timedelta(hours=1)


class JoinLimited(ValidationError):
    def __init__(self, message: str, *, retry_after_s: int):
        super().__init__(message, code="join_limited")
        self.retry_after_s = retry_after_s


def _new_code_fields() -> dict:
    code = codes.new_code()
    return {"join_code": code, "join_key": codes.key_of(code), "join_code_rotated_at": timezone.now()}


@transaction.atomic
def create_course(*, user, title: str, term: str = "") -> Course:
    """A course taught by ``user``: an instructor of the site (the view checks), or of a
    learning platform's course launching this tool for the first time (LTI)."""
    if not title.strip():
        raise ValidationError("a course needs a title")
    group = Group.objects.create(name=f"course-{uuid.uuid4().hex}")
    course = Course.objects.create(
        title=title.strip(), term=term.strip(), audience=group, created_by=user, **_new_code_fields()
    )
    _enrol(course, user, Role.INSTRUCTOR)
    return course


def rotate_join_code(*, course: Course) -> Course:
    """A new join code (and so a new join link); the old one joins nothing any more."""
    check_open(course)
    fields = _new_code_fields()
    Course.objects.filter(pk=course.pk).update(**fields)
    for name, value in fields.items():
        setattr(course, name, value)
    return course


def clean_student_id(value: str) -> str:
    """A learner's id at their school as typed or sent: stripped; refused (``ValidationError``) when
    longer than ``MAX_STUDENT_ID`` or holding a control character (it goes into CSVs)."""
    value = (value or "").strip()
    if len(value) > MAX_STUDENT_ID:
        raise ValidationError(f"A student id has at most {MAX_STUDENT_ID} characters; this one has {len(value)}.")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValidationError("A student id is one line of text: no tabs, line breaks or control characters.")
    return value


def set_student_id(*, course: Course, user, student_id: str) -> Membership:
    """The learner's id at their school, as the course's instructor typed it (empty clears it)."""
    check_open(course)
    value = clean_student_id(student_id)
    member = Membership.objects.filter(course=course, user=user).first()
    if member is None:
        raise ValidationError(f"{user.username} is not on this course's roster.")
    if member.student_id != value:
        member.student_id = value
        member.save(update_fields=["student_id"])
    return member


def _platform_student_id(student_id: str) -> str:
    """What a learning platform sent, kept when it is a usable id and dropped otherwise: a launch
    is not refused over it."""
    try:
        return clean_student_id(student_id)
    except ValidationError:
        return ""


def _enrol(course: Course, user, role: str, student_id: str = "") -> Membership:
    member, created = Membership.objects.get_or_create(course=course, user=user, defaults={"role": role})
    changed = []
    student_id = _platform_student_id(student_id)
    if student_id and member.student_id != student_id:  # the platform's id, when it sends one
        member.student_id = student_id
        changed.append("student_id")
    if not created and role == Role.INSTRUCTOR and member.role != role:
        member.role = role
        changed.append("role")
    if member.inactive_since is not None:  # back on the platform's roster, or joined again
        member.inactive_since = None
        changed.append("inactive_since")
    if changed:
        member.save(update_fields=changed)
    user.groups.add(course.audience)
    if "inactive_since" in changed:
        _catch_up(course, user)
    return member


def _catch_up(course: Course, user) -> None:
    """A learner active again: their standings, frozen while they were away, follow their
    verdicts again (what they submitted meanwhile counts as the rules say)."""
    for assignment in course.assignments.all():
        refresh_standings(assignment=assignment, user_ids=[user.pk])


def _last_active_instructor(course: Course, member: Membership) -> bool:
    others = course.memberships.filter(role=Role.INSTRUCTOR, inactive_since__isnull=True).exclude(pk=member.pk)
    return member.role == Role.INSTRUCTOR and member.inactive_since is None and not others.exists()


def sync_member(*, course: Course, user, role: str, student_id: str = "") -> tuple[str | None, str]:
    """A member as a learning platform's roster lists them (inside the sync's transaction): added,
    made active again, or given the platform's role and student id (``lis_person_sourcedid``, when
    it sends one). Returns ("added" | "updated" | None, a note: why a change was not made). The
    course's last active instructor stays one."""
    check_open(course)
    member = Membership.objects.select_for_update().filter(course=course, user=user).first()
    if member is None:
        _enrol(course, user, role, student_id)
        return "added", ""
    changed, note = [], ""
    student_id = _platform_student_id(student_id)
    if student_id and member.student_id != student_id:
        member.student_id = student_id
        changed.append("student_id")
    if member.inactive_since is not None:
        member.inactive_since = None
        changed.append("inactive_since")
        user.groups.add(course.audience)
    if member.role != role:
        if _last_active_instructor(course, member):
            note = "kept as an instructor: the course's last one"
        else:
            member.role = role
            changed.append("role")
    if changed:
        member.save(update_fields=changed)
    if {"inactive_since", "role"} & set(changed) and member.role == Role.LEARNER:
        _catch_up(course, user)
    return ("updated" if changed else None), note


def deactivate_member(*, course: Course, user, now: datetime | None = None) -> tuple[bool, str]:
    """The member is no longer on the platform's roster: inactive from now (nothing of theirs is
    deleted). Returns (whether they were made inactive, a note: why not)."""
    check_open(course)
    member = Membership.objects.select_for_update().filter(course=course, user=user).first()
    if member is None or member.inactive_since is not None:
        return False, ""
    if _last_active_instructor(course, member):
        return False, "kept: the course's last instructor"
    member.inactive_since = now or timezone.now()
    member.save(update_fields=["inactive_since"])
    user.groups.remove(course.audience)  # the problems kept for the course are no longer theirs to see
    return True, ""


def enrol(*, course: Course, user, role: str, student_id: str = "") -> Membership:
    """Adds the user to the course (LTI launches name the role, and may send the learner's id at
    their school, which replaces the one kept); an instructor stays one. An archived course takes
    nobody new; its members stay."""
    if course.archived_at is not None:
        found = Membership.objects.filter(course=course, user=user).first()
        if found is None:
            check_open(course)
        return found
    with transaction.atomic():
        return _enrol(course, user, role, student_id)


def join_course(*, user, code: str, address: str = "", now: datetime | None = None) -> Course:
    """The learner joins the course whose join code this is. Refused (``ValidationError``) for a
    code that is no course's, and (``JoinLimited``) after too many wrong codes in the last hour
    from this account or this address: that, the length of the codes and a lookup that times the
    same whatever the code, is what keeps anyone from finding courses by trying codes."""
    now = now or timezone.now()
    _check_join_rate(user=user, address=address, now=now)
    typed = codes.normalise(code)
    course = Course.objects.filter(join_key=codes.key_of(typed)).first() if codes.looks_like_a_code(typed) else None
    found = course is not None and codes.matches(course.join_code, typed)
    JoinAttempt.objects.create(user=user, address=address[:64], succeeded=found)
    if not found:
        raise ValidationError(
            f"No course has the join code {code.strip()[:40]!r}. Codes are 12 letters and digits, such as "
            f"{codes.shown('7KQ2MX9DPRWA')}: check it with your instructor, or use the join link they sent.",
            code="unknown_code",
        )
    check_open(course)
    with transaction.atomic():
        _enrol(course, user, Role.LEARNER)
    return course


def _check_join_rate(*, user, address: str, now: datetime) -> None:
    since = now - JOIN_WINDOW
    failures = JoinAttempt.objects.filter(succeeded=False, created_at__gt=since)
    for recent, limit in (
        (failures.filter(user=user), JOIN_FAILURES_PER_USER),
        (failures.filter(address=address) if address else None, JOIN_FAILURES_PER_ADDRESS),
    ):
        if recent is None:
            continue
        times = list(recent.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(times) >= limit:
            wait = max(60, int((times[-1] + JOIN_WINDOW - now).total_seconds()))
            raise JoinLimited(
                f"{limit} wrong join codes in the last hour: joining is paused for {wait // 60 + 1} minutes. "
                f"Ask your instructor for the join link, which needs no typing.",
                retry_after_s=wait,
            )


def add_instructor(*, course: Course, identifier: str) -> Membership:
    """Makes the user with this username (or email) a co-instructor of the course."""
    check_open(course)
    text = identifier.strip()
    users = get_user_model().objects.filter(Q(username=text) | (Q(email__iexact=text) & ~Q(email="")))
    found = list(users[:2])
    if len(found) != 1:
        raise ValidationError(
            f"No single user has the username or email {text!r}: they sign up first, "
            f"then you add them by the name shown at the top right of their pages."
        )
    return enrol(course=course, user=found[0], role=Role.INSTRUCTOR)


@transaction.atomic
def remove_member(*, course: Course, user) -> None:
    """Takes the user off the roster (their submissions stay theirs). The last instructor stays."""
    check_open(course)
    member = Membership.objects.select_for_update().filter(course=course, user=user).first()
    if member is None:
        return
    if member.role == Role.INSTRUCTOR and course.memberships.filter(role=Role.INSTRUCTOR).count() == 1:
        raise ValidationError("a course keeps at least one instructor: add another before leaving")
    member.delete()
    user.groups.remove(course.audience)
    Standing.objects.filter(assignment__course=course, user=user).delete()
