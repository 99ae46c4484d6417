"""End to end over HTTP: a real redis-server, a real Celery worker and beat, gunicorn."""

import os
import signal
import time

import pytest
from celery import Celery

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
    for source, verdict in (
        (correct_source(), "accepted"),
        (no_checkpoint_source(), "policy_violation"),
        (correct_source(), "accepted"),
    ):
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
    assert status["verdict"] == "policy_violation" and "(relu) at line" in status["message"]
    assert [c["name"] for c in site.submission(submission_id)["report"]["cases"]] == ["sample-1", "sample-2"]


def test_a_verdict_shows_on_every_page_thread_the_moment_it_is_stored(site):
    """The pages' threads keep their SQLite connection between requests (devstack/front.py): a
    connection that kept a read open from an earlier request would go on showing "queued" after
    the worker stored the verdict. Every thread is used before the verdict (2 workers of 4
    threads, 24 requests), and every answer after it is stored must have it."""
    session = site.session()
    submission_id = submit(session, no_checkpoint_source(), path="/problems/checkpoint_dot_policy/run/")
    status_path = f"/submissions/{submission_id}/status/"
    before = [session.get_json(status_path)["done"] for _ in range(24)]
    wait_until(lambda: site.submission(submission_id)["status"] == "done", 180, "the verdict to be stored")
    after = [session.get_json(status_path) for _ in range(24)]
    assert all(answer["done"] and answer["verdict"] == "policy_violation" for answer in after), (before, after)


def grading_process(site, submission_id: int) -> int | None:
    """The pid of the worker pool process now running the grading of this submission, as the
    worker itself reports it (Celery's remote control, over the site's Redis)."""
    control = Celery(broker=f"redis://127.0.0.1:{site.redis_port}/0")
    try:
        active = control.control.inspect(timeout=1.0).active() or {}
    finally:
        control.close()
    for tasks in active.values():
        for task in tasks:
            if task["name"] == "submissions.grade_submission" and task["args"] == [submission_id]:
                return task["worker_pid"]
    return None


def test_a_worker_process_killed_while_grading_loses_nothing(site):
    """The pool process grading a submission is killed (as the OOM killer would): Celery rejects
    the unacknowledged message back to the queue (acks_late + reject_on_worker_lost), a pool
    process receives the same message again, takes the running submission over as a second
    attempt, and the verdict is stored."""
    session = site.session()
    # A correct solution that first computes for a few seconds, so there is time to kill it.
    slow = correct_source() + "\n\nWARM_UP = sum(i * i for i in range(30_000_000))\n"
    submission_id = submit(session, slow)
    pids = []
    wait_until(
        lambda: pids.append(grading_process(site, submission_id)) or pids[-1],
        120,
        "a worker process to grade the submission",
    )
    assert site.submission(submission_id)["status"] == "running"
    os.kill(pids[-1], signal.SIGKILL)
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
