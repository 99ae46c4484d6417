"""The Celery application: configured from Django settings (the CELERY_ namespace), tasks
discovered in each app's ``tasks.py``.

Start a worker with ``celery -A webplatform worker -Q cpu`` (or ``-Q gpu`` on a machine with a
GPU), one for ``cpu.background`` (validations, rejudges, LTI passback, roster syncs), one for
``cpu.explore`` (the policy explorer's runs: a queue of their own, so that background work never
waits behind them), and beat with ``celery -A webplatform beat``; docs/operators/workers.md."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webplatform.settings")

app = Celery("webplatform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
