"""The scores owed to platforms (Assignment and Grade Services): recorded in the transaction that
moved a standing, and sent by a task until the platform accepts them."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError
from lti_tool.models import LtiUser

from webplatform.core.queues import enqueue
from webplatform.courses import selectors as courses_selectors
from webplatform.courses.models import Standing

from .. import ags
from ..models import AssignmentLink, ScoreReport

logger = logging.getLogger(__name__)
SEND_TASK = "lti.send_score"  # the task (tasks.py) these services enqueue, by name
# Waits between tries of a score the platform did not take: 10 s, 20 s, ... at most an hour.
FIRST_RETRY_S, LONGEST_RETRY_S = 10, 3600


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
