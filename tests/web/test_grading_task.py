"""The grading task, run in this process on the real judge (a real child process grades)."""

import json
import threading
import time

import pytest
from celery.exceptions import Reject
from django.db import OperationalError
from django.urls import reverse

from webplatform.catalog.models import Problem, ProblemVersion
from webplatform.catalog.services import sync_problems
from webplatform.submissions import services, tasks
from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from .helpers import DOT_POLICY, copy_package, correct_source, no_checkpoint_source

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
Status = Submission.Status


def submit(user, problem, source, kind="submit"):
    return services.create_submission(user=user, problem=problem, source=source, kind=kind)


def test_a_correct_submission_is_accepted_with_its_evidence_and_a_second_message_changes_nothing(
    learner, dot_policy, broker
):
    submission = submit(learner, dot_policy, correct_source())
    assert grade_submission.apply(args=[submission.pk], task_id="message-1").get() == "accepted"
    submission.refresh_from_db()
    assert (submission.status, submission.verdict, submission.attempts) == (Status.DONE, "accepted", 1)
    report = submission.report
    assert [c["name"] for c in report["cases"]] == ["sample-1", "sample-2", "tall", "wide"]
    assert report["residual_bytes"] == report["reference_residual_bytes"] == 3584
    assert "dot_general" in report["programs"]["forward"]
    # Measured for the leaderboard: our traced figures and XLA's beside them, and the time.
    cost = report["cost"]
    assert (submission.residual_bytes, submission.flops, submission.peak_bytes) == (
        3584,
        round(cost["flops"]),
        cost["peak_bytes"],
    )
    assert submission.flops > 0 and submission.peak_bytes >= 3584
    assert submission.xla_flops == round(cost["xla_flops"]) and submission.xla_peak_bytes == cost["xla_peak_bytes"]
    assert 0 < submission.grading_time_s == report["time_s"]
    finished = submission.finished_at
    # A duplicate message (a sweep that raced the worker, a redelivery) does nothing.
    assert grade_submission.apply(args=[submission.pk], task_id="message-2").get() == "skipped"
    submission.refresh_from_db()
    assert submission.finished_at == finished and submission.attempts == 1


def test_run_samples_grades_the_sample_cases_only_and_names_the_saved_relu(learner, dot_policy, broker):
    submission = submit(learner, dot_policy, no_checkpoint_source(), kind="run")
    assert grade_submission.apply(args=[submission.pk], task_id="m").get() == "policy_violation"
    submission.refresh_from_db()
    assert [c["name"] for c in submission.report["cases"]] == ["sample-1", "sample-2"]
    assert submission.message.startswith("case sample-1: Your program has no jax.checkpoint")
    assert "(relu) at line" in submission.message
    offending = [r["what"] for r in submission.report["residuals"] if r["offending"]]
    assert "relu" in offending
    # A quick check: not measured, and (not accepted) nothing for the leaderboard.
    assert submission.report["cost"] is None and submission.flops is None and submission.residual_bytes is None


def test_a_judge_that_keeps_failing_ends_in_internal_error_after_bounded_retries(
    learner, broker, tmp_path, settings, django_capture_on_commit_callbacks
):
    settings.GRADING = {**settings.GRADING, "MAX_ATTEMPTS": 3, "RETRY_DELAY_S": 0}
    copy_package(DOT_POLICY, tmp_path, "damaged")
    sync_problems(root=tmp_path)
    problem = Problem.objects.get(slug="damaged")
    version = problem.current_version
    # The stored package no longer matches its hash: the worker refuses to grade with it.
    ProblemVersion.objects.filter(pk=version.pk).update(files={**version.files, "reference.py": "broken = True\n"})
    with django_capture_on_commit_callbacks(execute=True):
        submission = submit(learner, problem, correct_source())
    outcomes = []
    for _ in range(5):  # at most as many messages as it takes; the loop ends on its own
        messages = broker.messages("cpu")
        broker.client.flushdb()
        if not messages:
            break
        with django_capture_on_commit_callbacks(execute=True):
            outcomes.append(grade_submission.apply(args=messages[0]["args"], task_id=messages[0]["id"]).get())
    assert outcomes == ["retrying", "retrying", "internal_error"]
    submission.refresh_from_db()
    assert (submission.status, submission.verdict, submission.attempts) == (Status.DONE, "internal_error", 3)
    assert "failed 3 times" in submission.message and "PackageError" not in submission.message
    assert "PackageError" in submission.report["judge_error"]  # for staff: the log and the stored report


def test_an_internal_error_verdict_of_the_judge_is_retried_then_kept(learner, broker, tmp_path, settings):
    settings.GRADING = {**settings.GRADING, "MAX_ATTEMPTS": 1}
    folder = copy_package(DOT_POLICY, tmp_path, "bad_reference")
    (folder / "reference.py").write_text("def checkpoint_dot_policy(w1, w2, x):\n    raise RuntimeError('oops')\n")
    sync_problems(root=tmp_path)
    submission = submit(learner, Problem.objects.get(slug="bad_reference"), correct_source(), kind="run")
    assert grade_submission.apply(args=[submission.pk], task_id="m").get() == "internal_error"
    submission.refresh_from_db()
    assert submission.verdict == "internal_error" and submission.report["verdict"] == "internal_error"
    # The reference's failure is for staff; the learner is told it is not their code, and no more.
    assert "the reference of bad_reference failed" in submission.report["judge_error"]
    assert "oops" not in submission.message and "reference" not in submission.message


def test_printed_output_keeps_no_hidden_size_in_the_stored_report_or_on_the_page(
    learner, learner_client, dot_policy, broker
):
    # checkpoint_dot_policy's hidden cases are N=64, d=32 and N=2, d=48; its samples N=8, d=16 and N=4, d=4
    printing = correct_source().replace(
        "    y = jnp.maximum", '    print(f"SHAPE {x.shape[0]}x{x.shape[1]}")\n    y = jnp.maximum'
    )
    # Run samples shows what the code printed on the samples ...
    run = submit(learner, dot_policy, printing, kind="run")
    assert grade_submission.apply(args=[run.pk], task_id="r").get() == "accepted"
    run.refresh_from_db()
    assert "SHAPE 8x16" in run.report["stdout"] and "SHAPE 4x4" in run.report["stdout"]
    page = learner_client.get(reverse("submissions:detail", args=[run.pk])).content.decode()
    assert "SHAPE 8x16" in page and "Of the sample cases only (and of your module as it loads)" in page
    # ... a submission, whose child also met the hidden cases, shows and keeps none of it.
    submission = submit(learner, dot_policy, printing)
    assert grade_submission.apply(args=[submission.pk], task_id="m").get() == "accepted"
    submission.refresh_from_db()
    assert submission.report.get("stdout", "") == ""
    submitted_page = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    assert "SHAPE 8x16" not in submitted_page and 'id="stdout"' not in submitted_page
    for stored in (json.dumps(run.report), page, json.dumps(submission.report), submitted_page):
        assert "64x32" not in stored and "2x48" not in stored


def _flaky(real, failures: list):
    """``real``, raising the error a dropped database connection raises while ``failures`` lasts."""

    def call(**kwargs):
        if failures:
            failures.pop()
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    return call


@pytest.mark.django_db(transaction=True)  # the claim's heartbeat beats from a thread, on its own connection
def test_a_database_outage_while_grading_delays_the_verdict_and_never_grades_it_twice(
    learner, dot_policy, broker, settings, monkeypatch
):
    """The database goes away as the worker claims the submission and again as it stores the
    verdict: the task waits for it each time (it does not fail, which would acknowledge and lose
    the message), and the verdict graded once is stored once."""
    settings.GRADING = {**settings.GRADING, "DATABASE_PATIENCE_S": 60}
    submission = submit(learner, dot_policy, correct_source())
    claim_failures, store_failures, gradings = [1, 1], [1, 1, 1], []
    monkeypatch.setattr(services, "claim_submission", _flaky(services.claim_submission, claim_failures))
    monkeypatch.setattr(services, "complete_submission", _flaky(services.complete_submission, store_failures))
    real_grade = tasks.grade
    monkeypatch.setattr(tasks, "grade", lambda *a, **k: gradings.append(1) or real_grade(*a, **k))
    assert grade_submission.apply(args=[submission.pk], task_id="m").get() == "accepted"
    assert claim_failures == store_failures == [] and gradings == [1]
    submission.refresh_from_db()
    assert (submission.status, submission.verdict, submission.attempts) == (Status.DONE, "accepted", 1)


@pytest.mark.django_db(transaction=True)  # the claim's heartbeat beats from a thread, on its own connection
def test_a_runner_slow_to_start_keeps_its_claim_through_the_sweeps(learner, dot_policy, broker, settings, monkeypatch):
    """A pool process's first grading starts its runner (a zygote that imports JAX and probes the
    sandbox), seconds on a loaded machine: its claim beats meanwhile, so the sweeps that run then
    do not take it for a dead worker's, and it is graded once."""
    settings.GRADING = {**settings.GRADING, "HEARTBEAT_EVERY_S": 0.2, "CLAIM_TIMEOUT_S": 1.0}
    submission = submit(learner, dot_policy, correct_source())
    swept, real_runner = [], tasks.worker_runner

    def slow_to_start():
        for _ in range(8):  # 4 s of starting, four times the claim's timeout, swept twice a second
            time.sleep(0.5)
            swept.append(services.sweep())
        return real_runner()

    monkeypatch.setattr(tasks, "worker_runner", slow_to_start)
    assert grade_submission.apply(args=[submission.pk], task_id="m").get() == "accepted"
    assert [result.released for result in swept] == [[]] * 8
    submission.refresh_from_db()
    assert (submission.status, submission.verdict, submission.attempts) == (Status.DONE, "accepted", 1)


def test_a_database_away_for_longer_than_the_patience_hands_the_message_back(
    learner, dot_policy, broker, settings, monkeypatch
):
    settings.GRADING = {**settings.GRADING, "DATABASE_PATIENCE_S": 0.5}
    submission = submit(learner, dot_policy, correct_source())
    monkeypatch.setattr(services, "claim_submission", _flaky(services.claim_submission, [1] * 1000))
    result = grade_submission.apply(args=[submission.pk], task_id="m")
    # Rejected with requeue: the broker keeps the message (not acknowledged as done).
    assert isinstance(result.result, Reject) and result.result.requeue
    submission.refresh_from_db()
    assert submission.status == Status.QUEUED


@pytest.mark.django_db(transaction=True)  # the grading runs in a thread of its own, on its own connection
def test_cancelling_a_running_grading_stops_it_at_the_next_heartbeat(learner, dot_policy, broker, settings):
    settings.GRADING = {**settings.GRADING, "HEARTBEAT_EVERY_S": 0.2}
    slow = correct_source() + "\n\nWARM_UP = sum(i * i for i in range(300_000_000))\n"  # a minute of work
    submission = submit(learner, dot_policy, slow)
    outcome = []
    grading = threading.Thread(
        target=lambda: outcome.append(grade_submission.apply(args=[submission.pk], task_id="m").get())
    )
    grading.start()
    try:
        deadline = time.monotonic() + 60
        while Submission.objects.get(pk=submission.pk).status != Status.RUNNING and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # into the grading
        assert services.cancel_submission(user=learner, submission_id=submission.pk)
    finally:
        grading.join(50)  # the child is killed: far sooner than its minute of work
    assert outcome == ["stopped"]
    submission.refresh_from_db()
    assert (submission.status, submission.verdict, submission.report) == (Status.CANCELLED, "", None)
