"""The Celery application: configured from Django settings (the CELERY_ namespace), tasks
discovered in each app's ``tasks.py``.

Start a worker with ``celery -A webplatform worker -Q cpu`` (or ``-Q gpu`` on a machine with a
GPU) and beat with ``celery -A webplatform beat``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webplatform.settings")

app = Celery("webplatform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
