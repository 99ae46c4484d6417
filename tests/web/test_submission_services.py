"""Creating submissions, the guarded state transitions and the sweep (no grading here)."""
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from webplatform.catalog.models import Problem
from webplatform.catalog.services import sync_problems
from webplatform.submissions import services
from webplatform.submissions.models import Submission

from .helpers import DOT_POLICY, copy_package, correct_source

pytestmark = pytest.mark.django_db
Status = Submission.Status


def submit(user, problem, kind="submit", source=None):
    return services.create_submission(user=user, problem=problem, source=source or correct_source(), kind=kind)


def test_a_submission_is_enqueued_on_the_cpu_queue_only_once_committed(
        learner, dot_policy, broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submission = submit(learner, dot_policy)
        assert broker.messages("cpu") == []  # nothing sent before the row is committed
    for callback in callbacks:
        callback()
    assert submission.status == Status.QUEUED and submission.version == dot_policy.current_version
    assert [(m["task"], m["args"]) for m in broker.messages("cpu")] == [
        ("submissions.grade_submission", [submission.pk])]
    assert broker.messages("gpu") == []


def test_a_gpu_problem_goes_to_the_gpu_queue(learner, broker, tmp_path, django_capture_on_commit_callbacks):
    copy_package(DOT_POLICY, tmp_path, "on_gpu", device='"gpu"')
    sync_problems(root=tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        submission = submit(learner, Problem.objects.get(slug="on_gpu"))
    assert [m["args"] for m in broker.messages("gpu")] == [[submission.pk]]
    assert broker.messages("cpu") == []


@pytest.mark.parametrize("source, error", [
    ("   \n", "empty"),
    ("x = 1\n" * 20000, "larger than 64 KiB"),
])
def test_empty_or_huge_code_is_refused(learner, dot_policy, source, error):
    with pytest.raises(ValidationError, match=error):
        submit(learner, dot_policy, source=source)
    assert not Submission.objects.exists()


def test_a_retired_problem_takes_no_submissions(learner, dot_policy):
    Problem.objects.filter(pk=dot_policy.pk).update(is_active=False)
    dot_policy.refresh_from_db()
    with pytest.raises(ValidationError, match="not open"):
        submit(learner, dot_policy)


def test_a_broker_restart_loses_no_submission(learner, dot_policy, broker, settings,
                                               django_capture_on_commit_callbacks):
    """Redis down when a learner submits: the request still succeeds and the submission waits,
    queued, in the database; once Redis is back the sweep publishes it again. (Redis here keeps
    nothing on disk, so messages already queued before a restart are lost too: the same sweep
    publishes those again.)"""
    settings.GRADING = {**settings.GRADING, "STALE_QUEUED_S": 60}
    broker.server.stop()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            submission = submit(learner, dot_policy)
    finally:
        broker.server.start()
    submission.refresh_from_db()
    assert submission.status == Status.QUEUED and broker.messages("cpu") == []
    _age(submission, "enqueued_at", 61)
    assert services.sweep_stale_submissions().requeued == [submission.pk]
    assert [m["args"] for m in broker.messages("cpu")] == [[submission.pk]]


def test_only_one_claim_of_a_queued_submission_succeeds(learner, dot_policy):
    submission = submit(learner, dot_policy)
    first = services.claim_submission(submission_id=submission.pk, task_id="message-1")
    assert first.status == Status.RUNNING and first.attempts == 1 and first.task_id == "message-1"
    assert services.claim_submission(submission_id=submission.pk, task_id="message-2") is None  # a duplicate


def test_the_same_message_delivered_again_takes_over_from_a_dead_worker(learner, dot_policy):
    submission = submit(learner, dot_policy)
    services.claim_submission(submission_id=submission.pk, task_id="message-1")
    again = services.claim_submission(submission_id=submission.pk, task_id="message-1")
    assert again is not None and again.attempts == 2 and again.status == Status.RUNNING


def test_only_the_attempt_that_claimed_it_may_finish_it(learner, dot_policy):
    submission = submit(learner, dot_policy)
    services.claim_submission(submission_id=submission.pk, task_id="m")
    services.claim_submission(submission_id=submission.pk, task_id="m")  # attempt 2 took over
    report = {"verdict": "accepted", "message": "ok"}
    assert not services.complete_submission(submission_id=submission.pk, attempt=1, report=report)
    assert services.complete_submission(submission_id=submission.pk, attempt=2, report=report)
    assert not services.complete_submission(submission_id=submission.pk, attempt=2, report=report)  # done already
    submission.refresh_from_db()
    assert (submission.status, submission.verdict) == (Status.DONE, "accepted")


def test_a_report_must_carry_a_verdict_of_the_judge(learner, dot_policy):
    submission = submit(learner, dot_policy)
    services.claim_submission(submission_id=submission.pk, task_id="m")
    with pytest.raises(ValueError, match="not a verdict"):
        services.complete_submission(submission_id=submission.pk, attempt=1, report={"verdict": "ok"})


def test_a_failed_attempt_is_queued_again_until_the_attempts_run_out(
        learner, dot_policy, broker, settings, django_capture_on_commit_callbacks):
    settings.GRADING = {**settings.GRADING, "MAX_ATTEMPTS": 2, "RETRY_DELAY_S": 5}
    submission = submit(learner, dot_policy)
    services.claim_submission(submission_id=submission.pk, task_id="m1")
    with django_capture_on_commit_callbacks(execute=True):
        outcome = services.record_grading_failure(submission_id=submission.pk, attempt=1, message="boom")
    assert outcome == "retrying"
    submission.refresh_from_db()
    assert submission.status == Status.QUEUED and "retrying" in submission.message
    [message] = broker.messages("cpu")
    assert message["args"] == [submission.pk] and message["eta"] is not None  # after a delay
    services.claim_submission(submission_id=submission.pk, task_id=message["id"])
    assert services.record_grading_failure(submission_id=submission.pk, attempt=2, message="boom") == "internal_error"
    submission.refresh_from_db()
    assert (submission.status, submission.verdict) == (Status.DONE, "internal_error")
    assert "not a problem with your code" in submission.message
    # The judge's words are for staff (they may quote the problem's reference): log and report only.
    assert "boom" not in submission.message and submission.report["judge_error"] == "boom"


def _age(submission, field, seconds):
    Submission.objects.filter(pk=submission.pk).update(**{field: timezone.now() - timedelta(seconds=seconds)})


def test_the_sweep_republishes_submissions_queued_too_long(learner, dot_policy, broker, settings):
    settings.GRADING = {**settings.GRADING, "STALE_QUEUED_S": 60}
    lost, fresh = submit(learner, dot_policy), submit(learner, dot_policy)
    _age(lost, "enqueued_at", 61)
    result = services.sweep_stale_submissions()
    assert result.requeued == [lost.pk] and result.restarted == [] and result.failed == []
    assert [m["args"] for m in broker.messages("cpu")] == [[lost.pk]]
    lost.refresh_from_db()
    assert lost.status == Status.QUEUED and timezone.now() - lost.enqueued_at < timedelta(seconds=5)
    assert services.sweep_stale_submissions().requeued == []  # not again at once
    fresh.refresh_from_db()
    assert fresh.status == Status.QUEUED


def test_the_sweep_restarts_submissions_whose_worker_died(
        learner, dot_policy, broker, settings, django_capture_on_commit_callbacks):
    settings.GRADING = {**settings.GRADING, "STALE_RUNNING_S": 300, "MAX_ATTEMPTS": 3}
    stuck, busy = submit(learner, dot_policy), submit(learner, dot_policy)
    for s in (stuck, busy):
        services.claim_submission(submission_id=s.pk, task_id=f"m{s.pk}")
    _age(stuck, "started_at", 301)
    _age(busy, "started_at", 100)  # still within every problem's limits: left alone
    with django_capture_on_commit_callbacks(execute=True):
        result = services.sweep_stale_submissions()
    assert result.restarted == [stuck.pk] and result.failed == []
    stuck.refresh_from_db()
    busy.refresh_from_db()
    assert stuck.status == Status.QUEUED and stuck.attempts == 1
    assert busy.status == Status.RUNNING
    assert [m["args"] for m in broker.messages("cpu")] == [[stuck.pk]]


def test_the_sweep_gives_up_with_internal_error_after_the_last_attempt(learner, dot_policy, broker, settings):
    settings.GRADING = {**settings.GRADING, "STALE_RUNNING_S": 300, "MAX_ATTEMPTS": 1}
    stuck = submit(learner, dot_policy)
    services.claim_submission(submission_id=stuck.pk, task_id="m")
    _age(stuck, "started_at", 301)
    assert services.sweep_stale_submissions().failed == [stuck.pk]
    stuck.refresh_from_db()
    assert (stuck.status, stuck.verdict) == (Status.DONE, "internal_error")
    assert "not a problem with your code" in stuck.message and "stopped responding" in stuck.report["judge_error"]
    assert broker.messages("cpu") == []
