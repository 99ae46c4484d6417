"""Pages and event streams on one origin, as ``make run`` serves them (devstack/front.py: nginx in
front of gunicorn's thread worker for the pages and its ASGI worker for the streams): many learners
hold streams open while pages still answer, a stream server killed is started again by the
launcher, and a verdict stored after that reaches a stream opened on the same host and port."""

import json
import os
import re
import signal
import socket
import time

import pytest

from devstack.front import unix_socket_accepts
from devstack.processes import free_port, manage, wait_until
from devstack.stack import production_env

from ..web.helpers import correct_source
from .conftest import launch
from .http import Session

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# More open streams than the pages' server has threads (2 workers x 4): were the streams served
# there, the pages behind them would wait for a thread until the streams end.
STREAMS = 40
RELEASE = """
from django.db import transaction
from django.utils import timezone
from webplatform.submissions import events
from webplatform.submissions.models import Submission
with transaction.atomic():
    Submission.objects.filter(pk=ID).update(status="done", verdict="wrong_answer", message="stored by the test",
                                            finished_at=timezone.now())
    events.announce(ID)
assert events.flush(30)  # before this process ends, as a worker (which lives on) would
"""


def open_stream(port: int, session: str, submission_id: int):
    """An event stream on the site's port: its socket, its first event, and its reader."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(
        f"GET /submissions/{submission_id}/events/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Cookie: sessionid={session}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    reader = sock.makefile("rb")
    head = reader.readline()
    assert head.startswith(b"HTTP/1.1 200"), head
    while True:
        line = reader.readline()
        assert line, "the stream ended before its first event"
        if line.startswith(b"data: "):
            return sock, json.loads(line[len(b"data: ") :]), reader


def next_event(reader) -> dict:
    while True:
        line = reader.readline()
        assert line, "the stream ended before the verdict"
        if line.startswith(b"data: "):
            return json.loads(line[len(b"data: ") :])


def test_pages_answer_beside_open_streams_and_a_killed_stream_server_comes_back(tmp_path):
    port = free_port()
    # A worker for the gpu queue only: the learner's gradings (a CPU problem) stay queued, their
    # streams open, as a class waiting on a busy judge.
    # One account holds the class's streams here: its per-account limit on open streams is raised to
    # them, and one more for the stream opened after the restart (the killed server's slots are freed
    # within a slot's hold, 40 s, since nothing renews them: tests/web/test_status_stream.py).
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "SUBMISSIONS_PER_MINUTE": "1000",
        "EVENT_STREAMS_PER_USER": str(STREAMS + 1),
    }
    launcher = launch(tmp_path, port, "--queues", "gpu", env=env)
    held = []
    try:
        redis_url = re.search(r"broker: (\S+);", launcher.log_path.read_text()).group(1)
        site = Session(f"http://127.0.0.1:{port}")
        site.login("learner", "learner-pass-1")
        cookie = site.cookie("sessionid")
        ids = []
        for _ in range(STREAMS):
            status, created = site.post_json("/problems/checkpoint_dot_policy/submit/", {"source": correct_source()})
            assert status == 201, created
            ids.append(created["id"])
        for submission_id in ids:
            sock, first, reader = open_stream(port, cookie, submission_id)
            assert first["id"] == submission_id and first["status"] == "queued"
            held.append((sock, reader))

        for path in ("/", "/problems/checkpoint_dot_policy/", "/leaderboard/"):
            started = time.monotonic()
            status, page = site.get(path)
            assert status == 200 and "</html>" in page, path
            assert time.monotonic() - started < 10, f"{path} waited behind the open streams"

        def pids():
            return {
                name: child["pid"]
                for name, child in json.loads((tmp_path / "run" / "children.json").read_text())["children"].items()
            }

        before = pids()
        assert {"front", "pages", "streams"} <= set(before)
        os.kill(before["streams"], signal.SIGKILL)
        wait_until(lambda: pids()["streams"] != before["streams"], 30, "the launcher to restart the streams", launcher)
        assert re.search(
            r"streams \(pid \d+\) exited with -9 after \d+ s; restarting it \(restart 1\)",
            launcher.log_path.read_text(),
        )
        assert pids()["front"] == before["front"] and pids()["pages"] == before["pages"]
        # the held streams ended with their server (each page then polls, and its EventSource opens again)
        for sock, reader in held:
            sock.settimeout(30)
            while reader.readline():
                pass
        assert site.get("/")[0] == 200

        # A stream opened on the same origin after the restart gets the verdict stored after it.
        wait_until(lambda: unix_socket_accepts(str(tmp_path / "run" / "streams.sock")), 30, "the streams' server")
        sock, first, reader = open_stream(port, cookie, ids[0])
        held.append((sock, reader))
        assert first["status"] == "queued"
        manage(
            "shell",
            "-c",
            RELEASE.replace("ID", str(ids[0])),
            env={
                **os.environ,
                **env,
                **production_env(tmp_path),
                "REDIS_URL": redis_url,
                "DJANGO_SETTINGS_MODULE": "webplatform.settings",
            },
        )
        last = next_event(reader)
        while not last["done"]:
            last = next_event(reader)
        assert last["verdict"] == "wrong_answer" and last == site.get_json(f"/submissions/{ids[0]}/status/")
    finally:
        for sock, _ in held:
            sock.close()
        launcher.popen.send_signal(signal.SIGINT)
        launcher.popen.wait(90)
