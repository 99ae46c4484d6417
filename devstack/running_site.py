"""The site started as ``make run`` starts it (``python -m devstack run``), for a benchmark that
sends it learners (``burst.py``, ``waiting.py``): its environment, its start, and the learners'
sessions, made in its own database so that its requests take them."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

from .processes import ROOT, Child, manage, wait_until
from .stack import production_env

SESSIONS = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
keys = []
for i in range(LEARNERS):
    user, _ = get_user_model().objects.get_or_create(username=f"burst{i:03d}")
    session = SessionStore()
    session.update({SESSION_KEY: str(user.pk), HASH_SESSION_KEY: user.get_session_auth_hash(),
                    BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[0]})
    session.create()
    keys.append(session.session_key)
print(json.dumps(keys))
"""


def site_env(var: Path, database_url: str) -> dict:
    """The site as deployed: production settings (sweep, heartbeats, rate limit) unchanged, and the
    stack's own key (production_env), so that the learners' sessions made here are its sessions."""
    return {
        **production_env(var),
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "webplatform.settings",
        "PYTHONUNBUFFERED": "1",
    }


def start_site(*, var: Path, port: int, env: dict, options: list[str]) -> Child:
    """``python -m devstack run --port PORT --var VAR OPTIONS`` in ``env``, once it says it is
    running (its log is ``VAR/launcher.log``; SIGINT stops it, as Ctrl-C stops ``make run``)."""
    launcher = Child(
        "launcher",
        [sys.executable, "-m", "devstack", "run", "--port", str(port), "--var", str(var), *options],
        var / "launcher.log",
        env=env,
        stop_signal=signal.SIGINT,
        stop_timeout=90,
    )
    launcher.start(ROOT)
    try:
        wait_until(
            lambda: "is running on" in launcher.log_path.read_text(),
            300,
            "the site to start",
            launcher,
            interval=0.5,
        )
    except BaseException:
        launcher.stop()  # a site that did not start is stopped here: its caller holds no launcher to stop
        raise
    return launcher


def learner_sessions(count: int, env: dict) -> list[str]:
    """The session keys of ``count`` learners (``burst000``, ``burst001``, ...; made where new), one
    session each, made with ``manage.py shell`` in the site's ``env``."""
    return json.loads(manage("shell", "-c", SESSIONS.replace("LEARNERS", str(count)), env=env).splitlines()[-1])
