"""Where background work runs, and how a service hands it over.

Work is sorted by device and by lane. The device is the problem's (``cpu`` or ``gpu``; a GPU
worker consumes ``-Q gpu``). The lane says who waits for it:

- ``quick``: a learner's "Run samples", a check they wait for with the editor open;
- ``submit``: a learner's recorded submission;
- ``background``: work nobody watches live (authoring validations, rejudges).

Quick and submit share the device's queue, quick first (a message priority: kombu's Redis
transport reads the lower numbers first); background work has a queue of its own
(``cpu.background``), consumed by a worker of its own, so however much of it there is, it never
takes a learner's worker. ``queue_for`` names the queue per message; every other task goes where
``CELERY_TASK_ROUTES`` sends it. Services enqueue by task name, never by importing the task
modules: those import the services."""

from __future__ import annotations

from judge.packages.package import DEVICES  # a queue per device a problem may ask for
from webplatform.celery import app

QUICK, SUBMIT, BACKGROUND = "quick", "submit", "background"
LANES = (QUICK, SUBMIT, BACKGROUND)
# Lower is read first. The sweep (no priority: 0) goes before any grading: it is what recovers
# lost work, and it must not wait behind a burst. So does a grading whose worker died under it
# (``resumed``): its learner already waited their turn once.
PRIORITY = {QUICK: 3, SUBMIT: 6, BACKGROUND: 6}
RESUMED_PRIORITY = 0


def queue_for(version, lane: str = SUBMIT) -> str:
    """The queue of work on a problem version: its device, and the background queue of that
    device for background work. ``version``: a ``ProblemVersion``, or a package loaded from a
    draft's files (both say ``device``)."""
    return f"{version.device}.background" if lane == BACKGROUND else version.device


def grading_queues() -> list[str]:
    """Every queue a grading or a validation may wait in."""
    return [queue for device in DEVICES for queue in (device, f"{device}.background")]


def enqueue(
    task: str,
    *args,
    queue: str | None = None,
    lane: str | None = None,
    resumed: bool = False,
    countdown: float | None = None,
    **publish,
) -> None:
    """Publishes a message for the task named ``task`` with ``args`` (ids: the task reads the
    database). ``queue``: the task's route when None; ``lane``: its priority in that queue, or
    first of all when ``resumed``. ``publish``: Celery's publishing options (``retry_policy``...).
    Raises kombu's ``OperationalError`` when the broker cannot be reached."""
    if lane is not None:
        publish["priority"] = RESUMED_PRIORITY if resumed else PRIORITY[lane]
    app.send_task(task, args=list(args), queue=queue, countdown=countdown, **publish)
