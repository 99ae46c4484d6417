"""Where background work runs, and how a service hands it over.

A grading or a validation runs on its problem's device: the queue is the device's name (``cpu``
or ``gpu``; a GPU worker consumes ``-Q gpu``), chosen per message by ``queue_for``. Every other
task goes where ``CELERY_TASK_ROUTES`` in the settings sends it. Services enqueue by task name,
never by importing the task modules: those import the services."""
from __future__ import annotations

from webplatform.celery import app


def queue_for(version) -> str:
    """The queue of work on a problem version: its device. ``version``: a ``ProblemVersion``, or
    a package loaded from a draft's files (both say ``device``)."""
    return version.device


def enqueue(task: str, *args, queue: str | None = None, countdown: float | None = None, **publish) -> None:
    """Publishes a message for the task named ``task`` with ``args`` (ids: the task reads the
    database). ``queue``: the task's route when None. ``publish``: Celery's publishing options
    (``retry_policy``...). Raises kombu's ``OperationalError`` when the broker cannot be reached."""
    app.send_task(task, args=list(args), queue=queue, countdown=countdown, **publish)
