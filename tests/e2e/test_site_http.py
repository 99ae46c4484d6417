"""End to end over HTTP: a real redis-server, a real Celery worker and beat, gunicorn."""
import os
import signal
import time
from pathlib import Path

import pytest

from devstack.processes import wait_until

from ..web.helpers import correct_source, no_checkpoint_source

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
SUBMIT = "/problems/checkpoint_dot_policy/submit/"


def submit(session, source, path=SUBMIT) -> int:
    status, data = session.post_json(path, {"source": source})
    assert status == 201, data
    return data["id"]


def test_a_submission_over_http_is_graded_by_the_worker_and_stored(site):
    session = site.session()
    timings = []
    for source, verdict in ((correct_source(), "accepted"), (no_checkpoint_source(), "policy_violation"),
                            (correct_source(), "accepted")):
        started = time.monotonic()
        submission_id = submit(session, source)
        status = site.wait_for_verdict(session, submission_id)
        timings.append(time.monotonic() - started)
        assert status["verdict"] == verdict
        row = site.submission(submission_id)
        assert (row["status"], row["verdict"], row["kind"]) == ("done", verdict, "submit")
        assert row["report"]["verdict"] == verdict and len(row["report"]["cases"]) == 4
    print(f"HTTP submit -> verdict visible: {', '.join(f'{t:.2f} s' for t in timings)}")
    # The verdict page serves the stored result; the static files come through whitenoise.
    code, page = session.get(f"/submissions/{submission_id}/")
    assert code == 200 and 'id="residual-table"' in page and "/static/arena/arena." in page
    css = page.split('href="/static/arena/')[1].split('"')[0]
    assert session.get(f"/static/arena/{css}")[0] == 200


def test_run_samples_goes_through_the_worker_too(site):
    session = site.session()
    submission_id = submit(session, no_checkpoint_source(), path="/problems/checkpoint_dot_policy/run/")
    status = site.wait_for_verdict(session, submission_id)
    assert status["verdict"] == "policy_violation" and "output of relu" in status["message"]
    assert [c["name"] for c in site.submission(submission_id)["report"]["cases"]] == ["sample-1", "sample-2"]


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []


def _worker_pid(site) -> int:
    marker = f"arena-{site.launcher.pid}@".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes() and b"worker" in (entry / "cmdline").read_bytes():
                    return int(entry.name)
            except OSError:
                continue
    raise AssertionError("the Celery worker process was not found")


def test_a_worker_process_killed_while_grading_loses_nothing(site):
    """The pool process grading a submission is killed (as the OOM killer would): Celery rejects
    the unacknowledged message back to the queue (acks_late + reject_on_worker_lost), another
    pool process receives the same message, takes the running submission over as a second
    attempt, and the verdict is stored."""
    session = site.session()
    submission_id = submit(session, correct_source())
    worker = _worker_pid(site)

    def busy_pool_process():
        # The pool process that grades has a child: the process running the submission.
        return next((pid for pid in _children(worker) if _children(pid)), None)

    wait_until(lambda: site.submission(submission_id)["status"] == "running" and busy_pool_process(), 120,
               "the submission to be graded")
    os.kill(busy_pool_process(), signal.SIGKILL)
    status = site.wait_for_verdict(session, submission_id)
    row = site.submission(submission_id)
    assert status["verdict"] == "accepted" and row["attempts"] == 2
    assert "WorkerLostError" in (site.var / "log" / "worker.log").read_text()


def test_a_broker_restart_loses_nothing(site):
    """Redis stops: a submission made meanwhile is still recorded (the request does not fail) and
    waits, queued, in the database. Redis comes back empty (it keeps nothing on disk); the worker
    and beat reconnect, and the sweep publishes the waiting submission again."""
    session = site.session()
    site.stop_redis()
    try:
        started = time.monotonic()
        submission_id = submit(session, correct_source())
        assert time.monotonic() - started < 10  # publishing gives up quickly
        assert site.submission(submission_id)["status"] == "queued"
    finally:
        site.start_redis()
    assert site.wait_for_verdict(session, submission_id)["verdict"] == "accepted"
