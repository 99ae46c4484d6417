"""Creating submissions, the guarded state transitions and the sweep (no grading here)."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from judge.data.report import Report
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
    learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submission = submit(learner, dot_policy)
        assert broker.messages("cpu") == []  # nothing sent before the row is committed
    for callback in callbacks:
        callback()
    assert submission.status == Status.QUEUED and submission.version == dot_policy.current_version
    assert [(m["task"], m["args"]) for m in broker.messages("cpu")] == [
        ("submissions.grade_submission", [submission.pk])
    ]
    assert broker.messages("gpu") == []


def test_a_gpu_problem_goes_to_the_gpu_queue(learner, broker, tmp_path, django_capture_on_commit_callbacks):
    copy_package(DOT_POLICY, tmp_path, "on_gpu", device='"gpu"')
    sync_problems(root=tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        submission = submit(learner, Problem.objects.get(slug="on_gpu"))
    assert [m["args"] for m in broker.messages("gpu")] == [[submission.pk]]
    assert broker.messages("cpu") == []


@pytest.mark.parametrize(
    "source, error",
    [
        ("   \n", "empty"),
        ("x = 1\n" * 20000, "larger than 64 KiB"),
    ],
)
def test_empty_or_huge_code_is_refused(learner, dot_policy, source, error):
    with pytest.raises(ValidationError, match=error):
        submit(learner, dot_policy, source=source)
    assert not Submission.objects.exists()


def test_a_retired_problem_takes_no_submissions(learner, dot_policy):
    Problem.objects.filter(pk=dot_policy.pk).update(is_active=False)
    dot_policy.refresh_from_db()
    with pytest.raises(ValidationError, match="not open"):
        submit(learner, dot_policy)


def test_a_broker_restart_loses_no_submission(
    learner, dot_policy, broker, settings, django_capture_on_commit_callbacks
):
    """Redis down when a learner submits: the request still succeeds and the submission waits,
    queued, in the database; once Redis is back, the sweep sees its message in no queue and
    publishes it again."""
    settings.GRADING = {**settings.GRADING, "REPUBLISH_AFTER_S": 8}
    broker.server.stop()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            submission = submit(learner, dot_policy)
    finally:
        broker.server.start()
    submission.refresh_from_db()
    assert submission.status == Status.QUEUED and broker.messages("cpu") == []
    assert services.sweep().republished == []  # just published (or tried): its message may be on its way
    _age(submission, "published_at", 9)
    assert services.sweep().republished == [submission.pk]
    assert [m["args"] for m in broker.messages("cpu")] == [[submission.pk]]
    assert services.sweep().republished == []  # in the queue now: not again


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


def test_a_claim_tried_again_by_the_process_that_made_it_is_the_same_attempt(learner, dot_policy):
    """The database committed the claim but the connection dropped before the worker heard so: the
    worker tries the claim again and finds its own, without counting a second attempt."""
    submission = submit(learner, dot_policy)
    services.claim_submission(submission_id=submission.pk, task_id="m", worker="node#7")
    again = services.claim_submission(submission_id=submission.pk, task_id="m", worker="node#7")
    assert (again.attempts, again.claimed_by) == (1, "node#7")
    other = services.claim_submission(submission_id=submission.pk, task_id="m", worker="node#8")
    assert other.attempts == 2  # another process with the same message: the first one died


def test_only_the_attempt_that_claimed_it_may_finish_it(learner, dot_policy):
    submission = submit(learner, dot_policy)
    services.claim_submission(submission_id=submission.pk, task_id="m")
    services.claim_submission(submission_id=submission.pk, task_id="m")  # attempt 2 took over
    report = {"verdict": "accepted", "message": "ok"}
    assert not services.complete_submission(submission_id=submission.pk, attempt=1, report=Report.from_dict(report))
    assert services.complete_submission(submission_id=submission.pk, attempt=2, report=Report.from_dict(report))
    assert not services.complete_submission(
        submission_id=submission.pk, attempt=2, report=Report.from_dict(report)
    )  # done already
    submission.refresh_from_db()
    assert (submission.status, submission.verdict) == (Status.DONE, "accepted")


def test_a_report_must_carry_a_verdict_of_the_judge(learner, dot_policy):
    submission = submit(learner, dot_policy)
    services.claim_submission(submission_id=submission.pk, task_id="m")
    with pytest.raises(ValueError, match="not a verdict"):
        services.complete_submission(submission_id=submission.pk, attempt=1, report=Report.from_dict({"verdict": "ok"}))


def test_a_failed_attempt_is_queued_again_until_the_attempts_run_out(
    learner, dot_policy, broker, settings, django_capture_on_commit_callbacks
):
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


def test_the_sweep_republishes_only_what_is_in_no_queue(
    learner, other_learner, dot_policy, broker, settings, django_capture_on_commit_callbacks
):
    settings.GRADING = {**settings.GRADING, "REPUBLISH_AFTER_S": 8}
    with django_capture_on_commit_callbacks(execute=True):
        lost, waiting = submit(learner, dot_policy), submit(other_learner, dot_policy)
    broker.client.flushdb()  # as a broker restart without persistence would
    with django_capture_on_commit_callbacks(execute=True):
        services.enqueue_grading(submission_id=waiting.pk, version=waiting.version, lane=waiting.lane)
    for submission in (lost, waiting):
        _age(submission, "published_at", 60)
    result = services.sweep()
    assert result.republished == [lost.pk] and result.released == [] and result.broker == "ok"
    assert sorted(m["args"][0] for m in broker.messages("cpu")) == sorted([lost.pk, waiting.pk])


def _claimed(user, problem, task_id):
    submission = submit(user, problem)
    services.claim_submission(submission_id=submission.pk, task_id=task_id, worker=f"node-a#{task_id}")
    return submission


def _sweep_twice():
    """A sweep while the sweeps have been running all along (the last one a second ago): after a
    gap, or on the first run ever, it would release nothing and give every claim a fresh timeout."""
    from webplatform.submissions.models import Sweep

    Sweep.objects.update_or_create(pk=1, defaults={"last_run_at": timezone.now() - timedelta(seconds=1)})
    return services.sweep()


def test_a_claim_whose_heartbeat_stopped_is_released_within_seconds(
    learner, other_learner, dot_policy, broker, settings, django_capture_on_commit_callbacks
):
    settings.GRADING = {**settings.GRADING, "CLAIM_TIMEOUT_S": 10, "MAX_ATTEMPTS": 3}
    stuck, busy = _claimed(learner, dot_policy, "m1"), _claimed(other_learner, dot_policy, "m2")
    _age(stuck, "heartbeat_at", 11)  # its worker stopped beating
    _age(busy, "heartbeat_at", 3)
    assert services.heartbeat(submission_id=busy.pk, attempt=1)  # a live worker's beat
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        result = _sweep_twice()
    assert result.released == [stuck.pk] and result.failed == []
    stuck.refresh_from_db()
    busy.refresh_from_db()
    assert (stuck.status, stuck.attempts, stuck.claimed_by) == (Status.QUEUED, 1, "")
    assert busy.status == Status.RUNNING
    [message] = broker.messages("cpu")
    # At once (no retry delay), and ahead of the queue: its learner already waited their turn.
    assert message["args"] == [stuck.pk] and message["eta"] is None and message["priority"] == 0
    # The released worker, were it only slow, can no longer finish it nor keep it.
    assert not services.heartbeat(submission_id=stuck.pk, attempt=1)
    assert not services.complete_submission(
        submission_id=stuck.pk, attempt=1, report=Report.from_dict({"verdict": "accepted"})
    )


def test_after_a_gap_in_the_sweeps_no_claim_is_released_until_heartbeats_could_resume(
    learner, dot_policy, broker, settings
):
    """The database was away for 20 s: no heartbeat could be written, nor could the sweep run.
    The first sweep after it must not take the gradings that were running throughout away from
    their workers (they would be graded twice); the next one releases only silent claims."""
    settings.GRADING = {**settings.GRADING, "CLAIM_TIMEOUT_S": 10, "SWEEP_GAP_S": 6}
    services.sweep()
    from webplatform.submissions.models import Sweep

    Sweep.objects.update(last_run_at=timezone.now() - timedelta(seconds=21))  # the outage
    running = _claimed(learner, dot_policy, "m1")
    _age(running, "heartbeat_at", 21)
    first = services.sweep()
    assert first.claims_checked is False and first.released == []
    # The sweeps sent during the outage run back to back: the next one, at once, leaves the claim
    # to its worker too (it was retrying its claim or its verdict while the database was away).
    assert services.sweep().released == []
    services.heartbeat(submission_id=running.pk, attempt=1)  # its worker beats again
    assert services.sweep().released == []
    running.refresh_from_db()
    assert running.status == Status.RUNNING


def test_after_a_gap_a_claim_whose_worker_never_beats_again_is_released_a_timeout_later(
    learner, dot_policy, broker, settings
):
    settings.GRADING = {**settings.GRADING, "CLAIM_TIMEOUT_S": 10, "SWEEP_GAP_S": 6}
    services.sweep()
    from webplatform.submissions.models import Sweep

    Sweep.objects.update(last_run_at=timezone.now() - timedelta(seconds=21))  # the outage
    dead = _claimed(learner, dot_policy, "m1")
    _age(dead, "heartbeat_at", 21)
    assert services.sweep().released == [] and services.sweep().released == []
    _age(dead, "heartbeat_at", 11)  # a whole timeout after the database came back, still silent
    assert services.sweep(now=timezone.now()).released == [dead.pk]


def test_the_sweep_gives_up_with_internal_error_after_the_last_attempt(learner, dot_policy, broker, settings):
    settings.GRADING = {**settings.GRADING, "CLAIM_TIMEOUT_S": 10, "MAX_ATTEMPTS": 1}
    stuck = _claimed(learner, dot_policy, "m")
    _age(stuck, "heartbeat_at", 11)
    broker.client.flushdb()
    assert _sweep_twice().failed == [stuck.pk]
    stuck.refresh_from_db()
    assert (stuck.status, stuck.verdict) == (Status.DONE, "internal_error")
    assert "not a problem with your code" in stuck.message and "heartbeats" in stuck.report["judge_error"]
    assert broker.messages("cpu") == []


def test_a_restarted_worker_releases_its_past_life_s_claims_at_once(
    learner, other_learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    before = _claimed(learner, dot_policy, "m1")  # node-a's previous life
    booted = timezone.now()
    after = submit(other_learner, dot_policy)
    services.claim_submission(submission_id=after.pk, task_id="m2", worker="node-a#99")  # its new life
    other = _claimed(other_learner, dot_policy, "m3")
    Submission.objects.filter(pk=other.pk).update(claimed_by="node-b#5", started_at=booted - timedelta(seconds=1))
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.release_claims_of_worker(node="node-a", booted_at=booted) == [before.pk]
    assert [m["args"] for m in broker.messages("cpu")] == [[before.pk]]
    assert Submission.objects.get(pk=after.pk).status == Submission.objects.get(pk=other.pk).status == Status.RUNNING
