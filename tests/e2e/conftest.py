"""The whole site, started as `make run` starts it (``python -m devstack run``): gunicorn, a Celery
worker and beat, on a SQLite file; plus a redis-server of the test's own that a test may restart."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from devstack.processes import Child, free_port, start_redis, wait_until

from .browser import chromium
from .http import Session

ROOT = Path(__file__).resolve().parents[2]
DEMO_LEARNER = ("learner", "learner-pass-1")


@dataclass
class Site:
    url: str
    var: Path
    redis_port: int
    redis: Child
    launcher: Child

    def stop_redis(self):
        self.redis.stop()

    def start_redis(self):
        self.redis = start_redis(self.redis_port, self.var / "redis", ROOT)

    def submission(self, submission_id: int) -> dict:
        """The submission's row as the database has it (not as a page shows it)."""
        with sqlite3.connect(self.var / "db.sqlite3", timeout=20) as db:
            db.row_factory = sqlite3.Row
            row = db.execute("SELECT * FROM submissions_submission WHERE id = ?", (submission_id,)).fetchone()
        data = dict(row)
        data["report"] = json.loads(data["report"]) if data["report"] else None
        return data

    def session(self, login=DEMO_LEARNER) -> Session:
        session = Session(self.url)
        if login:
            session.login(*login)
        return session

    def manage(self, *args: str) -> str:
        """``manage.py`` against the site's database and broker (as its operator would run it);
        returns what it printed."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "DATABASE_URL": f"sqlite:///{self.var / 'db.sqlite3'}",
                "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            },
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def wait_for_verdict(self, session: Session, submission_id: int, timeout: float = 180) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = session.get_json(f"/submissions/{submission_id}/status/")
            if status["done"]:
                return status
            time.sleep(0.1)
        raise TimeoutError(
            f"submission {submission_id} not graded after {timeout} s: {self.submission(submission_id)}"
            f"\nworker log:\n{(self.var / 'log' / 'worker.log').read_text()[-3000:]}"
        )


def launch(var: Path, port: int, *extra: str, env: dict | None = None) -> Child:
    launcher = Child(
        "launcher",
        [sys.executable, "-m", "devstack", "run", "--port", str(port), "--var", str(var), *extra],
        var / "launcher.log",
        env=env or {},
        stop_signal=signal.SIGINT,
        stop_timeout=90,
    )
    launcher.start(ROOT)
    wait_until(
        lambda: "is running on" in launcher.log_path.read_text(), 240, "the site to start", launcher, interval=0.5
    )
    return launcher


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    var = tmp_path_factory.mktemp("site")
    redis_port = free_port()
    redis = start_redis(redis_port, var / "redis", ROOT)
    port = free_port()
    env = {
        "DATABASE_URL": f"sqlite:///{var / 'db.sqlite3'}",
        # A lost message is published again 2 s after it was (the sweep runs every second), so that
        # the broker-restart test does not wait the production 8 s.
        "GRADING_REPUBLISH_AFTER_S": "2",
        "SWEEP_EVERY_S": "1",
        # These tests submit as a handful of learners, many times a minute each; the limit itself
        # (6 a minute by default) is tested in tests/web/test_submission_limits.py.
        "SUBMISSIONS_PER_MINUTE": "120",
        # and sign up from one address, more than 5 an hour (tests/web/test_accounts_email.py)
        "SIGN_UPS_PER_ADDRESS": "100",
    }
    launcher = launch(var, port, "--redis-url", f"redis://127.0.0.1:{redis_port}/0", env=env)
    site = Site(f"http://127.0.0.1:{port}", var, redis_port, redis, launcher)
    yield site
    site.launcher.stop()
    site.redis.stop()


@pytest.fixture(scope="module")
def browser():
    """For a module's tests. Not the session's: while it runs, this thread has Playwright's event
    loop running, and Django refuses its ORM beside one; the longest groups (these among them)
    run first, so the site's tests come after them in the same process."""
    with chromium() as browser:
        yield browser


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = context.new_page()
    yield page
    context.close()
