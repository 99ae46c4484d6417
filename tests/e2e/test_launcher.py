"""`make run`'s launcher on its own: it starts its own redis-server, prints the demo logins, serves
the site, and Ctrl-C stops every process it started."""
import re
import signal
from pathlib import Path

import pytest

from devstack.processes import free_port, port_open

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
    finally:
        launcher.popen.send_signal(signal.SIGINT)  # what Ctrl-C in the terminal sends
        code = launcher.popen.wait(90)
    assert code == 0 and "stopped." in launcher.log_path.read_text()
    assert not port_open(port) and not port_open(redis_port)
    assert processes_mentioning(worker_marker) == [] and processes_mentioning(str(tmp_path / "celerybeat")) == []
