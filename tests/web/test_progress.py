"""``Progress``, the per-learner, per-version summary the global ranking adds up: the rules it
applies, and that keeping it in step with each verdict change gives exactly what rebuilding it
from the submissions table gives."""

from datetime import datetime, timedelta, timezone

import pytest
from django.contrib.auth import get_user_model

from judge.data.report import Report
from webplatform.catalog.services import sync_problems
from webplatform.leaderboard.models import Progress
from webplatform.leaderboard.rules import summarize
from webplatform.leaderboard.services import rebuild_progress
from webplatform.submissions import services

from .helpers import DOT_POLICY, copy_package
from .scenario import five_learners, graded, minutes, regrade

T = datetime(2026, 2, 2, 9, 0, tzinfo=timezone.utc)


def at(minute: float) -> datetime:
    return T + timedelta(minutes=minute)


@pytest.mark.parametrize(
    "history, expected",
    [
        ([], None),
        # unsolved: every rejection so far, no penalty yet
        ([(0, "wrong_answer"), (5, "policy_violation")], (2, 0, at(0), None, 2, None)),
        # 30 min 59 s after the first try, two rejections: 30 + 2 * 20
        (
            [(0, "wrong_answer"), (10, "runtime_error"), (30.99, "accepted"), (40, "wrong_answer"), (50, "accepted")],
            (5, 2, at(0), at(30.99), 2, 70),
        ),
        ([(0, "accepted")], (1, 1, at(0), at(0), 0, 0)),
    ],
)
def test_the_rules_for_one_learner_on_one_version(history, expected):
    summary = summarize((at(minute), verdict) for minute, verdict in history)
    assert (
        None
        if summary is None
        else (
            summary.submissions,
            summary.accepted,
            summary.first_submitted_at,
            summary.first_accepted_at,
            summary.rejected_before,
            summary.penalty_min,
        )
    ) == expected


def snapshot() -> list[tuple]:
    return sorted(
        Progress.objects.values_list(
            "user_id",
            "version_id",
            "problem_id",
            "submissions",
            "accepted",
            "first_submitted_at",
            "first_accepted_at",
            "rejected_before",
            "penalty_min",
        )
    )


@pytest.mark.django_db
def test_kept_in_step_it_equals_a_rebuild_from_the_submissions(bank, make_user, tmp_path):
    scenario = five_learners(bank, make_user)
    ada, grace = scenario["users"]["ada"], scenario["users"]["grace"]
    first = ada.submissions.get(problem=scenario["b"], verdict="accepted")
    services.rejudge_submission(submission_id=first.pk)
    regrade(first, "wrong_answer")
    pending = grace.submissions.get(problem=scenario["b"], verdict="wrong_answer")
    services.rejudge_submission(submission_id=pending.pk)  # left waiting for its new verdict
    # a problem that gets a second version, with submissions on both
    folder = copy_package(DOT_POLICY, tmp_path, "two_versions")
    sync_problems(root=tmp_path, retire_missing=False)
    from webplatform.catalog.models import Problem

    problem = Problem.objects.get(slug="two_versions")
    old = graded(ada, problem, "accepted", at=minutes(1))
    (folder / "statement.md").write_text("# Changed\n\nNew words.\n")
    sync_problems(root=tmp_path, retire_missing=False)
    graded(ada, Problem.objects.get(slug="two_versions"), "wrong_answer", at=minutes(2))
    services.rejudge_submission(submission_id=old.pk)
    regrade(old, "accepted")

    kept = snapshot()
    assert len(kept) > 10
    assert rebuild_progress() == len(kept)
    assert snapshot() == kept


@pytest.mark.django_db
def test_a_learner_deleted_takes_their_progress_along(dot_policy, learner, other_learner):
    graded(learner, dot_policy, "accepted")
    graded(other_learner, dot_policy, "accepted")
    get_user_model().objects.filter(pk=learner.pk).delete()
    assert list(Progress.objects.values_list("user_id", flat=True)) == [other_learner.pk]


@pytest.mark.django_db
def test_a_failed_verdict_change_leaves_no_progress_behind(dot_policy, learner, monkeypatch):
    """The summary is written in the transaction of the verdict: if it fails, neither is stored."""
    submission = services.create_submission(user=learner, problem=dot_policy, source="x = 1\n", kind="submit")
    claimed = services.claim_submission(submission_id=submission.pk, task_id="t")
    from webplatform.leaderboard import services as leaderboard_services

    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(leaderboard_services, "refresh_progress", broken)
    with pytest.raises(RuntimeError):
        services.complete_submission(
            submission_id=submission.pk,
            attempt=claimed.attempts,
            report=Report.from_dict({"verdict": "accepted", "message": "ok"}),
        )
    submission.refresh_from_db()
    assert submission.status == "running" and submission.verdict == "" and not Progress.objects.exists()


@pytest.mark.django_db
def test_the_admin_rejudges_and_deletes_through_the_services(client, dot_policy, learner, other_learner, make_user):
    mine, theirs = graded(learner, dot_policy, "accepted"), graded(other_learner, dot_policy, "accepted")
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "a-long-root-password"))
    url = "/admin/submissions/submission/"
    client.post(url, {"action": "rejudge", "_selected_action": [mine.pk]})
    mine.refresh_from_db()
    assert (mine.status, mine.verdict) == ("queued", "")
    assert list(Progress.objects.values_list("user_id", flat=True)) == [other_learner.pk]
    client.post(url, {"action": "delete_selected", "_selected_action": [theirs.pk], "post": "yes"})
    assert not Progress.objects.exists() and not type(theirs).objects.filter(pk=theirs.pk).exists()
