"""`make run`'s launcher on its own: it starts its own redis-server, prints the demo logins, serves
the site, starts again a child that died (saying so), and Ctrl-C stops every process it started."""

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from devstack.processes import free_port, port_open, wait_until

from ..web.helpers import correct_source
from .conftest import launch
from .http import Session

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_the_launcher_serves_the_site_and_ctrl_c_stops_everything(tmp_path):
    port = free_port()
    launcher = launch(tmp_path, port, env={"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"})
    try:
        output = launcher.log_path.read_text()
        assert "demo learner: username 'learner', password 'learner-pass-1'" in output
        assert "demo instructor: username 'instructor', password 'instructor-pass-1'" in output
        redis_port = int(re.search(r"broker: redis://127.0.0.1:(\d+)/0", output).group(1))
        assert port_open(redis_port)
        session = Session(f"http://127.0.0.1:{port}")
        session.login("learner", "learner-pass-1")
        status, page = session.get("/")
        assert status == 200 and "Checkpoint with a save policy" in page
        worker_marker = f"arena-{launcher.pid}@"
        assert processes_mentioning(worker_marker)
        assert processes_mentioning(f"arena-background-{launcher.pid}@")  # background work's own worker
        the_redis_and_the_worker_come_back_after_a_kill(launcher, tmp_path, session)
    finally:
        launcher.popen.send_signal(signal.SIGINT)  # what Ctrl-C in the terminal sends
        code = launcher.popen.wait(90)
    assert code == 0 and "stopped." in launcher.log_path.read_text()
    assert not port_open(port) and not port_open(redis_port)
    assert processes_mentioning(worker_marker) == [] and processes_mentioning(str(tmp_path / "celerybeat")) == []


def the_redis_and_the_worker_come_back_after_a_kill(launcher, var: Path, session: Session):
    """kill -9 of its Redis, then of its whole worker: the launcher starts each again (the log
    says so), the site goes on, and a submission made after is graded."""

    def pids():
        return {
            name: child["pid"]
            for name, child in json.loads((var / "run" / "children.json").read_text())["children"].items()
        }

    before = pids()
    os.kill(before["redis"], signal.SIGKILL)
    wait_until(lambda: pids()["redis"] != before["redis"], 30, "the launcher to restart Redis", launcher)
    os.killpg(before["worker"], signal.SIGKILL)
    wait_until(lambda: pids()["worker"] != before["worker"], 30, "the launcher to restart the worker", launcher)
    log = launcher.log_path.read_text()
    assert re.search(r"redis \(pid \d+\) exited with -9 after \d+ s; restarting it \(restart 1\)", log)
    assert re.search(r"worker \(pid \d+\) exited with -9 after \d+ s; restarting it \(restart 1\)", log)
    assert launcher.alive() and all(pids()[web] == before[web] for web in ("front", "pages", "streams"))
    status, data = session.post_json("/problems/checkpoint_dot_policy/submit/", {"source": correct_source()})
    assert status == 201, data
    deadline = time.monotonic() + 180
    while not session.get_json(data["status_url"])["done"] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert session.get_json(data["status_url"])["verdict"] == "accepted"
