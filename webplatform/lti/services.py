"""Writes of the LTI tool: what a launch makes of the platform's ids (a site user per platform
user, a course per platform course, an assignment per placed link), and the scores owed to
platforms, sent by a task until accepted.

Who is who comes from the launch's verified claims only (the platform signed them): ``sub``
under the registration is the user, the context the course, the roles claim the role."""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError
from lti_tool.models import Key, LtiContext, LtiDeployment, LtiMembership, LtiRegistration, LtiUser

from webplatform.core.params import parse_id
from webplatform.core.queues import BACKGROUND, enqueue
from webplatform.courses import selectors as courses_selectors
from webplatform.courses import services as courses
from webplatform.courses.models import Course, Membership, Standing

from . import ags, dynamic_registration, nrps
from .models import AssignmentLink, CourseContext, RegistrationInvite, RosterSync, ScoreReport

logger = logging.getLogger(__name__)
SEND_TASK = "lti.send_score"  # the task (tasks.py) these services enqueue, by name
SYNC_TASK = "lti.sync_roster"  # a course's roster sync, by course id (background lane)
INSTRUCTOR_ROLES = ("#Instructor", "#Administrator", "#ContentDeveloper", "#TeachingAssistant")
# Waits between tries of a score the platform did not take: 10 s, 20 s, ... at most an hour.
FIRST_RETRY_S, LONGEST_RETRY_S = 10, 3600
Role = Membership.Role


def is_instructor_role(roles) -> bool:
    """Any teaching role of the LTI vocabulary (context roles, full URIs or short names)."""
    return any(role.endswith(INSTRUCTOR_ROLES) or role in ("Instructor", "Administrator") for role in roles or ())


# --- launches ----------------------------------------------------------------------------------------


def site_user(*, platform_user: LtiUser):
    """The site user the platform user is: made at their first launch, named after them (a short
    hash of their platform id keeps names apart), with no password: they come in through the
    platform. Later launches refresh their name and email."""
    with transaction.atomic():
        platform_user = LtiUser.objects.select_for_update().get(pk=platform_user.pk)
        user = platform_user.auth_user
        if user is None:
            user = _new_user(platform_user)
            platform_user.auth_user = user
            platform_user.save(update_fields=["auth_user", "datetime_modified"])
        names = {
            "first_name": platform_user.given_name[:150],
            "last_name": platform_user.family_name[:150],
            "email": platform_user.email,
        }
        if not names["first_name"] and platform_user.name:
            names["first_name"] = platform_user.name[:150]
        changed = [field for field, value in names.items() if value and getattr(user, field) != value]
        for field in changed:
            setattr(user, field, names[field])
        if changed:
            user.save(update_fields=changed)
    return user


def _new_user(platform_user: LtiUser):
    label = platform_user.email.split("@")[0] or platform_user.given_name or platform_user.name or "learner"
    base = re.sub(r"[^\w.+-]", "", label.replace(" ", ".").lower())[:100] or "learner"
    digest = hashlib.sha256(f"{platform_user.registration.uuid}:{platform_user.sub}".encode()).hexdigest()
    users = get_user_model().objects
    for length in (6, 10, 16, 64):
        name = f"{base}-{digest[:length]}"
        if not users.filter(username=name).exists():
            user = users.create_user(username=name)
            user.set_unusable_password()
            user.save(update_fields=["password"])
            return user
    raise IntegrityError(f"no free username for {platform_user}")


def course_of(*, context, user, instructor: bool, title: str, term: str):
    """The course a platform's course is; a platform instructor's first launch makes it (taught by
    them). None when no instructor has launched from it yet."""
    with transaction.atomic():
        LtiContext.objects.select_for_update().filter(pk=context.pk).first()  # one first launch at a time
        found = CourseContext.objects.filter(context=context).select_related("course").first()
        if found is not None:
            return found.course
        if not instructor:
            return None
        course = courses.create_course(user=user, title=title or "Course from the learning platform", term=term)
        CourseContext.objects.create(context=context, course=course)
        return course


LIS_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/lis"


def student_id_of(get_claim) -> str:
    """The learner's id at their school as a launch sends it (``lis.person_sourcedid``: Canvas's
    SIS User ID, Moodle's ID number), or ""."""
    lis = get_claim(LIS_CLAIM)
    found = lis.get("person_sourcedid") if isinstance(lis, dict) else None
    return found if isinstance(found, str) else ""


def join(*, course, user, instructor: bool, student_id: str = "") -> None:
    courses.enrol(course=course, user=user, role=Role.INSTRUCTOR if instructor else Role.LEARNER, student_id=student_id)


def link_assignment(*, resource_link, assignment, endpoint: dict | None) -> AssignmentLink:
    """The placed link opens this assignment; ``endpoint``: the launch's AGS claim (its line item
    and scopes), kept for passback."""
    endpoint = endpoint or {}
    link, _ = AssignmentLink.objects.update_or_create(
        resource_link=resource_link,
        defaults={
            "assignment": assignment,
            "lineitem_url": endpoint.get("lineitem", ""),
            "lineitems_url": endpoint.get("lineitems", ""),
            "scopes": list(endpoint.get("scope", [])),
        },
    )
    return link


# --- scores ---------------------------------------------------------------------------------------------


def scores_changed(*, standing_ids) -> None:
    """``courses.signals.standings_changed`` receiver (inside the transaction that moved them):
    each learner launched from a placed link of the assignment is owed their new score there."""
    standings = Standing.objects.filter(pk__in=list(standing_ids)).select_related("assignment")
    for standing in standings:
        for link in AssignmentLink.objects.filter(assignment=standing.assignment).select_related(
            "resource_link__context__deployment__registration"
        ):
            registration = link.resource_link.context.deployment.registration
            platform_user = LtiUser.objects.filter(registration=registration, auth_user=standing.user_id).first()
            if platform_user is not None:
                owe(link=link, standing=standing, platform_user=platform_user)


def owe(*, link: AssignmentLink, standing: Standing, platform_user: LtiUser) -> ScoreReport:
    """Records the score the platform is owed and sends it once committed; nothing new to send
    when it already has this very score."""
    out_of = courses_selectors.points_possible(standing.assignment)  # the weights' total
    fields = {"score_given": standing.score, "score_maximum": float(out_of), "timestamp": standing.updated_at}
    report = ScoreReport.objects.filter(link=link, user_id=standing.user_id).first()
    if (
        report is not None
        and report.state == ScoreReport.State.SENT
        and all(getattr(report, name) == value for name, value in fields.items())
    ):
        return report
    report, _ = ScoreReport.objects.update_or_create(
        link=link,
        user_id=standing.user_id,
        defaults={
            **fields,
            "platform_user": platform_user,
            "state": ScoreReport.State.PENDING,
            "attempts": 0,
            "last_error": "",
            "next_try_at": timezone.now(),
        },
    )
    transaction.on_commit(lambda: _publish(report.pk))
    return report


def report_standing(*, link: AssignmentLink, user) -> None:
    """A learner's launch: their standing, if they have one, is owed to this link (a learner who
    solved problems before the link was placed gets their score at once)."""
    standing = Standing.objects.filter(assignment=link.assignment, user=user).select_related("assignment").first()
    platform_user = LtiUser.objects.filter(
        registration=link.resource_link.context.deployment.registration, auth_user=user
    ).first()
    if standing is not None and platform_user is not None:
        with transaction.atomic():
            owe(link=link, standing=standing, platform_user=platform_user)


def _publish(report_id: int, countdown: float | None = None) -> None:
    try:
        enqueue(SEND_TASK, report_id, countdown=countdown)
    except OperationalError as exc:  # the sweep publishes it again
        logger.warning("could not enqueue score report %s (%s); the sweep will retry", report_id, exc)


def retry_delay(attempts: int) -> float:
    return min(LONGEST_RETRY_S, FIRST_RETRY_S * 2 ** max(0, attempts - 1))


def send_score(*, report_id: int) -> str:
    """Sends the report's score to the platform: "sent", "already" (nothing left to send),
    "changed" (a newer score arrived while sending: its own message sends it), or "retrying"
    (refused or unreachable: the task is published again after a growing delay)."""
    report = (
        ScoreReport.objects.filter(pk=report_id)
        .select_related("link__assignment", "link__resource_link__context__deployment__registration", "platform_user")
        .first()
    )
    if report is None or report.state == ScoreReport.State.SENT:
        return "already"
    snapshot = {"score_given": report.score_given, "timestamp": report.timestamp, "state": ScoreReport.State.PENDING}
    assignment = report.link.assignment
    try:
        ags.send_score(
            registration=report.link.resource_link.context.deployment.registration,
            link=report.link,
            platform_user_id=report.platform_user.sub,
            score_given=report.score_given,
            score_maximum=report.score_maximum,
            timestamp=report.timestamp.isoformat(),
            label=assignment.title,
            resource_id=f"assignment-{assignment.pk}",
        )
    except ags.Refused as exc:
        attempts = report.attempts + 1
        delay = retry_delay(attempts)
        moved = ScoreReport.objects.filter(pk=report_id, **snapshot).update(
            attempts=attempts, last_error=str(exc)[:2000], next_try_at=timezone.now() + timedelta(seconds=delay)
        )
        logger.warning("score report %s refused (attempt %s, next in %s s): %s", report_id, attempts, delay, exc)
        if not moved:
            return "changed"
        _publish(report_id, countdown=delay)
        return "retrying"
    sent = ScoreReport.objects.filter(pk=report_id, **snapshot).update(
        state=ScoreReport.State.SENT, sent_at=timezone.now(), last_error="", next_try_at=None
    )
    return "sent" if sent else "changed"


def sweep_scores(*, now=None, grace_s: float = 60) -> list[int]:
    """Publishes again the pending reports whose next try is overdue (a message lost with the
    broker, or a worker that died holding it). Returns their ids."""
    now = now or timezone.now()
    overdue = list(
        ScoreReport.objects.filter(
            state=ScoreReport.State.PENDING, next_try_at__lt=now - timedelta(seconds=grace_s)
        ).values_list("pk", flat=True)[:1000]
    )
    for report_id in overdue:
        ScoreReport.objects.filter(pk=report_id).update(next_try_at=now)
        _publish(report_id)
    return overdue


def check_assignment(*, course, assignment_id) -> object:
    """The assignment a link names, which must be the course's (a custom parameter is signed by
    the platform, but names our ids: a link copied into another platform course names nothing)."""
    number = parse_id(assignment_id)  # "1²" is no id: str.isdigit() would take it, int() not
    found = course.assignments.filter(pk=number).first() if number is not None else None
    if found is None:
        raise ValidationError(
            "This link opens an assignment of another course, or one that was deleted: "
            "your instructor places it again with the platform's content selection."
        )
    return found


# --- Logins used once ----------------------------------------------------------------------------
# pylti1p3 checks that a launch's nonce was issued by this tool, but never uses it up, and it takes
# a state it has seen succeed without the browser's state cookie: the same launch posted again is
# accepted, and a captured id_token posted with another browser's own state signs that browser in
# as its victim. So the tool keeps, per login it starts, which nonce that state was issued with,
# and a launch spends it: its state must be one this tool issued, not spent yet, and its id_token
# must carry that state's own nonce. The cache is shared by the web processes (Redis), and
# ``add`` is atomic there, so two posts of one launch cannot both win.
LOGIN_TTL_S = 5 * 60  # as long as pylti1p3's state cookie lives
_ISSUED = "lti-login:{}"
_SPENT = "lti-login-spent:{}"


def remember_login(*, state: str, nonce: str) -> None:
    cache.set(_ISSUED.format(state), nonce, LOGIN_TTL_S)


def spend_login(*, state: str, nonce: str) -> None:
    """Uses up the login ``state`` for the id_token carrying ``nonce``, or refuses the launch
    (``ValidationError``) when the state is unknown, spent already, or issued with another nonce."""
    if not state or not nonce or len(state) > 200:
        raise ValidationError("The launch carries no login of this tool.", code="unknown_login")
    if cache.get(_SPENT.format(state)) is not None:
        raise ValidationError("This launch was used already.", code="replayed")
    issued = cache.get(_ISSUED.format(state))
    if issued is None:
        raise ValidationError(
            "This launch's login was not started here, or it is older than five minutes.", code="unknown_login"
        )
    if not cache.add(_SPENT.format(state), 1, LOGIN_TTL_S):
        raise ValidationError("This launch was used already.", code="replayed")
    cache.delete(_ISSUED.format(state))
    if not hmac.compare_digest(str(issued), nonce):
        raise ValidationError("This launch's token was issued for another login.", code="transplanted")


# --- roster sync (Names and Role Provisioning) -------------------------------------------------


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


# --- dynamic registration -------------------------------------------------------------------------

INVITE_DAYS = 7


def _invite_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_registration_invite(*, user=None, days: int = INVITE_DAYS) -> str:
    """A key for the registration URL that lets one platform register itself, good once and for
    ``days`` days; only its hash is kept."""
    key = secrets.token_urlsafe(32)
    RegistrationInvite.objects.create(
        key_hash=_invite_hash(key), created_by=user, expires_at=timezone.now() + timedelta(days=days)
    )
    return key


def _claim_invite(key: str) -> RegistrationInvite:
    """The open invite of this key, marked used (in its own transaction: two windows opening the
    same URL register one platform); ValidationError when there is none."""
    now = timezone.now()
    found = RegistrationInvite.objects.filter(
        key_hash=_invite_hash(key), used_at__isnull=True, expires_at__gt=now
    ).first()
    if found is None or not RegistrationInvite.objects.filter(pk=found.pk, used_at__isnull=True).update(used_at=now):
        raise ValidationError(
            "This registration URL is not valid: it was used already, it expired, or it was mistyped. "
            "Ask this site's administrator for a new one."
        )
    return found


def register_platform(
    *, key: str, openid_configuration: str, registration_token: str, login_url, launch_url: str, jwks_url: str
) -> LtiRegistration:
    """LTI Dynamic Registration, the tool's side: spends the invite of ``key``, reads the
    platform's configuration, sends the tool's registration to it, and keeps the platform (its
    registration, active, and the deployment it named). ``login_url(registration uuid)``: the
    tool's login address for the new registration. A failure gives the invite back and raises
    ValidationError in words for the platform's administrator."""
    invite = _claim_invite(key)
    try:
        if not Key.objects.active().exists():
            Key.objects.generate()  # the tool's signing key, which the platform reads at the JWKS URL
        config = dynamic_registration.fetch_configuration(openid_configuration, registration_token=registration_token)
        new_uuid = uuid.uuid4()
        body = dynamic_registration.tool_configuration(
            login_url=login_url(new_uuid), launch_url=launch_url, jwks_url=jwks_url
        )
        client_id, deployment_id = dynamic_registration.post_registration(
            config.registration_endpoint, body, registration_token=registration_token
        )
    except dynamic_registration.RegistrationFailed as exc:
        RegistrationInvite.objects.filter(pk=invite.pk).update(used_at=None)
        raise ValidationError(str(exc)) from None
    with transaction.atomic():
        registration, _ = LtiRegistration.objects.update_or_create(
            issuer=config.issuer,
            client_id=client_id,
            defaults={
                "name": f"{config.product or 'Platform'} at {urlsplit(config.issuer).netloc}"[:255],
                "uuid": new_uuid,
                "auth_url": config.authorization_endpoint,
                "token_url": config.token_endpoint,
                "keyset_url": config.jwks_uri,
                "is_active": True,
            },
        )
        if deployment_id:
            LtiDeployment.objects.update_or_create(
                registration=registration, deployment_id=deployment_id, defaults={"is_active": True}
            )
        RegistrationInvite.objects.filter(pk=invite.pk).update(registration=registration)
    logger.info("registered the LTI platform %s (client %s) by dynamic registration", config.issuer, client_id)
    return registration
