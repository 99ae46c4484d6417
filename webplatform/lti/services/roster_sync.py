"""A course's roster synced from its platform (Names and Role Provisioning): queued by an
instructor, read whole by a task, then members added, updated or made inactive, never deleted."""

from __future__ import annotations

import logging

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError
from lti_tool.models import LtiMembership, LtiUser

from webplatform.core.queues import BACKGROUND, enqueue
from webplatform.courses import services as courses
from webplatform.courses.models import Course

from .. import nrps
from ..models import CourseContext, RosterSync
from .launches import Role, is_instructor_role, site_user

logger = logging.getLogger(__name__)
SYNC_TASK = "lti.sync_roster"  # a course's roster sync, by course id (background lane)


def request_roster_sync(*, course, user) -> RosterSync:
    """Queues a sync of the course's roster from its platform (background lane). Refused for a
    course no platform launch has linked to a roster, and for an archived one."""
    if course.archived:
        raise ValidationError("This course is archived: its roster stays as it is. Reopen it to sync it.")
    if not CourseContext.objects.filter(course=course).exclude(context__memberships_url="").exists():
        raise ValidationError(
            "No learning platform has offered this course's roster: an instructor launches the tool "
            "from the platform's course, with Names and Role Provisioning enabled for the tool, first."
        )
    with transaction.atomic():
        sync = RosterSync.objects.create(course=course, requested_by=user)
        transaction.on_commit(lambda: _publish_sync(course.pk))
    return sync


def _publish_sync(course_id: int) -> None:
    try:
        enqueue(SYNC_TASK, course_id, lane=BACKGROUND)
    except OperationalError as exc:
        logger.warning("could not enqueue the roster sync of course %s (%s)", course_id, exc)
        RosterSync.objects.filter(course=course_id, status=RosterSync.Status.QUEUED).update(
            status=RosterSync.Status.FAILED,
            error="the sync could not be queued (the site's queue is unavailable): try again in a minute",
            finished_at=timezone.now(),
        )


def sync_roster(*, course_id: int) -> RosterSync | None:
    """Reads the course's roster from each platform course linked to it and brings the course's
    members in line: those listed are added or updated (role, name, email), those of that
    platform course no longer listed (or listed as not active) are made inactive, never deleted.
    The whole roster is read before anything is written: a roster that could not be read whole
    changes nothing (the sync says why). Idempotent: run again, it finds nothing to change. The
    record it fills is the course's queued sync (a new one when none waits). None: no such course."""
    course = Course.objects.filter(pk=course_id).first()
    if course is None:
        return None
    sync = RosterSync.objects.filter(course=course, status=RosterSync.Status.QUEUED).order_by("created_at").first()
    if sync is None:
        sync = RosterSync.objects.create(course=course)
    links = list(
        CourseContext.objects.filter(course=course)
        .exclude(context__memberships_url="")
        .select_related("context__deployment__registration")
    )
    try:
        if course.archived:
            raise nrps.Unavailable("the course is archived: its roster stays as it is")
        if not links:
            raise nrps.Unavailable("no platform course linked to this course offers its roster")
        rosters = [
            (
                link.context,
                nrps.fetch_members(registration=link.context.deployment.registration, url=link.context.memberships_url),
            )
            for link in links
        ]
    except nrps.Unavailable as exc:
        logger.warning("roster sync of course %s failed: %s", course_id, exc)
        return _finish(sync, error=str(exc))
    outcome = {"added": [], "updated": [], "left": [], "notes": [], "listed": 0}
    with transaction.atomic():
        Course.objects.select_for_update().filter(pk=course.pk).first()  # one sync of a course at a time
        for context, members in rosters:
            _apply_roster(course, context, members, outcome)
    return _finish(sync, **outcome)


def _finish(sync: RosterSync, **fields) -> RosterSync:
    """Closes this sync and any other queued for the course (asked twice: one read serves both)."""
    status = RosterSync.Status.FAILED if fields.get("error") else RosterSync.Status.DONE
    fields = {**fields, "status": status, "finished_at": timezone.now()}
    RosterSync.objects.filter(pk=sync.pk).update(**fields)
    RosterSync.objects.filter(course=sync.course_id, status=RosterSync.Status.QUEUED).update(**fields)
    sync.refresh_from_db()
    return sync


def _shown(user) -> str:
    name = user.get_full_name()
    return f"{name} ({user.username})" if name else user.username


def _apply_roster(course, context, members: list[dict], outcome: dict) -> None:
    registration = context.deployment.registration
    active_subs = set()
    for member in members:
        sub = member["user_id"]
        active = member.get("status", "Active") == "Active"
        outcome["listed"] += 1
        fields = {
            key: str(member[claim])[:500]
            for key, claim in (("given_name", "given_name"), ("family_name", "family_name"), ("name", "name"))
            if isinstance(member.get(claim), str)
        }
        if isinstance(member.get("email"), str) and "@" in member["email"]:
            fields["email"] = member["email"][:254]
        platform_user, _ = LtiUser.objects.update_or_create(registration=registration, sub=sub, defaults=fields)
        teaching = is_instructor_role(member["roles"])
        LtiMembership.objects.update_or_create(
            context=context,
            user=platform_user,
            defaults={"is_instructor": teaching, "is_learner": not teaching, "is_active": active},
        )
        if not active:
            continue  # made inactive below, with those not listed
        active_subs.add(sub)
        before = platform_user.auth_user
        # what a reader sees: a name split anew into given and family names is no change
        was = (before.get_full_name(), before.email) if before else None
        user = site_user(platform_user=platform_user)
        sourcedid = member.get("lis_person_sourcedid")
        change, note = courses.sync_member(
            course=course,
            user=user,
            role=Role.INSTRUCTOR if teaching else Role.LEARNER,
            student_id=sourcedid if isinstance(sourcedid, str) else "",
        )
        if change is None and was is not None and was != (user.get_full_name(), user.email):
            change = "updated"
        if change:
            outcome[change].append(_shown(user))
        if note:
            outcome["notes"].append(f"{_shown(user)}: {note}")
    # Who came from this platform course (a launch or an earlier sync) and is not listed as active.
    gone = (
        LtiMembership.objects.filter(context=context, user__auth_user__isnull=False)
        .exclude(user__sub__in=active_subs)
        .select_related("user__auth_user")
    )
    for record in gone:
        if record.is_active:
            LtiMembership.objects.filter(pk=record.pk).update(is_active=False)
        user = record.user.auth_user
        left, note = courses.deactivate_member(course=course, user=user)
        if left:
            outcome["left"].append(_shown(user))
        if note:
            outcome["notes"].append(f"{_shown(user)}: {note}")
