"""Celery tasks of grade passback: send one score (by id; idempotent: a score the platform has is
not sent again, and sending it twice changes nothing there), and sweep the overdue ones; and a
course's roster sync (by course id; idempotent: a second run finds nothing to change)."""

import logging

from celery import shared_task

from . import services

logger = logging.getLogger(__name__)


@shared_task(name=services.SEND_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def send_score(report_id: int) -> str:
    return services.send_score(report_id=report_id)


@shared_task(name="lti.sweep_scores", ignore_result=True)
def sweep_scores() -> list:
    overdue = services.sweep_scores()
    if overdue:
        logger.warning("score reports published again: %s", overdue)
    return overdue


@shared_task(name=services.SYNC_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def sync_roster(course_id: int) -> str:
    sync = services.sync_roster(course_id=course_id)
    return "no such course" if sync is None else sync.status
