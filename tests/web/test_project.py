"""Project wiring: settings from the environment, migrations in step with the models, Celery."""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from webplatform.celery import app
from webplatform.submissions.tasks import grade_submission

ROOT = Path(__file__).resolve().parents[2]
SHOW_SETTINGS = """
import django, json
django.setup()
from django.conf import settings
from webplatform.celery import app
db = settings.DATABASES["default"]
print(json.dumps({"engine": db["ENGINE"], "name": db["NAME"], "host": db["HOST"], "debug": settings.DEBUG,
                  "hosts": settings.ALLOWED_HOSTS, "broker": app.conf.broker_url, "secret": settings.SECRET_KEY}))
"""


def settings_under(env: dict, script: str = SHOW_SETTINGS) -> dict:
    """What ``script`` prints (JSON) of the settings made from ``env`` alone."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS") and not k.startswith("EMAIL_")
    }
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, "DJANGO_SETTINGS_MODULE": "webplatform.settings", **env},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_settings_come_from_the_environment():
    got = settings_under(
        {
            "DATABASE_URL": "postgres://arena:pw@db.example:5432/arena",
            "REDIS_URL": "redis://r:6379/2",
            "SECRET_KEY": "s3cret",
            "DEBUG": "1",
            "ALLOWED_HOSTS": "arena.example, localhost",
        }
    )
    assert got == {
        "engine": "django.db.backends.postgresql",
        "name": "arena",
        "host": "db.example",
        "debug": True,
        "hosts": ["arena.example", "localhost"],
        "broker": "redis://r:6379/2",
        "secret": "s3cret",
    }


def test_without_environment_it_is_sqlite_and_not_debug():
    got = settings_under({})
    assert got["engine"] == "django.db.backends.sqlite3" and got["name"].endswith("var/db.sqlite3")
    assert got["debug"] is False


@pytest.mark.django_db
def test_the_migrations_match_the_models():
    call_command("makemigrations", "--check", "--dry-run", stdout=StringIO())


def test_grading_survives_a_dead_worker_and_the_sweep_is_scheduled():
    assert grade_submission.acks_late and grade_submission.reject_on_worker_lost
    assert app.conf.worker_prefetch_multiplier == 1
    sweep = app.conf.beat_schedule["sweep"]
    # Every few seconds: recovery is measured in seconds (heartbeats, lost messages).
    assert sweep["task"] in app.tasks and sweep["schedule"] <= 5


OWN_KEY = "k4Qz-8vNw_2LmXp7RtYs3BcDf6GhJ9oUiEaVb1Ny-50chars-xx"  # a deployment's own


def test_production_refuses_to_start_without_its_own_secret_key_and_hosts():
    for env, missing in (
        ({"DEBUG": "0"}, "SECRET_KEY and ALLOWED_HOSTS"),
        ({"DEBUG": "false", "ALLOWED_HOSTS": "arena.example"}, "SECRET_KEY is not set"),
        ({"DEBUG": "0", "SECRET_KEY": OWN_KEY}, "ALLOWED_HOSTS is not set"),
    ):
        clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS")}
        result = subprocess.run(
            [sys.executable, "-c", SHOW_SETTINGS],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**clean, "DJANGO_SETTINGS_MODULE": "webplatform.settings", **env},
        )
        assert result.returncode != 0 and "ImproperlyConfigured" in result.stderr and missing in result.stderr, env
    got = settings_under({"DEBUG": "0", "SECRET_KEY": OWN_KEY, "ALLOWED_HOSTS": "arena.example"})
    assert (got["debug"], got["secret"], got["hosts"]) == (False, OWN_KEY, ["arena.example"])


def test_make_runs_devstack_keeps_a_key_of_its_own(tmp_path, monkeypatch):
    from devstack.stack import production_env

    for name in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"):
        monkeypatch.delenv(name, raising=False)
    first, again = production_env(tmp_path), production_env(tmp_path)
    assert first == again and first["DEBUG"] == "0" and len(first["SECRET_KEY"]) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # its owner's only
    assert settings_under(first)["secret"] == first["SECRET_KEY"]
