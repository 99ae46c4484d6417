"""Per-problem rankings (the problem's metrics, ties to the earlier submission, one row per
learner), the memory/recompute chart's points, and the figures a grading records."""

import pytest

from webplatform.leaderboard import selectors
from webplatform.leaderboard.metrics import FLOPS, PEAK_BYTES, RESIDUAL_BYTES, ranking_for
from webplatform.submissions import services

from .scenario import graded, minutes, regrade

pytestmark = pytest.mark.django_db


def table(board) -> list[tuple]:
    """(rank, username, submission id) of each row."""
    names = selectors.usernames(row.user_id for row in board.standings)
    return [(row.rank, names[row.user_id], row.submission_id) for row in board.standings]


@pytest.fixture
def learners(make_user):
    return {name: make_user(name) for name in ("ada", "grace", "alan", "edsger", "barbara")}


def test_ranks_by_residual_bytes_then_flops_then_the_earlier_submission_one_row_per_learner(dot_policy, learners):
    ada, grace, alan, edsger, barbara = (learners[n] for n in ("ada", "grace", "alan", "edsger", "barbara"))
    graded(ada, dot_policy, "accepted", at=minutes(0), residual_bytes=3584, flops=1000)
    ada_best = graded(ada, dot_policy, "accepted", at=minutes(10), residual_bytes=3584, flops=900)
    graded(ada, dot_policy, "accepted", at=minutes(20), residual_bytes=4224, flops=100)  # fewer FLOPs, more bytes
    # grace ties ada's best, earlier
    grace_best = graded(grace, dot_policy, "accepted", at=minutes(5), residual_bytes=3584, flops=900)
    alan_best = graded(alan, dot_policy, "accepted", at=minutes(30), residual_bytes=2560, flops=50_000)
    legacy = graded(edsger, dot_policy, "accepted", at=minutes(1), residual_bytes=None, flops=None)  # not measured
    graded(barbara, dot_policy, "policy_violation", at=minutes(2), residual_bytes=100, flops=10)  # rejected: no row
    graded(barbara, dot_policy, "accepted", at=minutes(3), kind="run", residual_bytes=100, flops=None)  # a sample run
    assert ranking_for(dot_policy) == (RESIDUAL_BYTES, FLOPS)
    assert table(selectors.problem_board(dot_policy)) == [
        (1, "alan", alan_best.pk),
        (2, "grace", grace_best.pk),
        (3, "ada", ada_best.pk),
        (4, "edsger", legacy.pk),
    ]


@pytest.mark.parametrize("slug", ["memory_budget_mlp", "memory_budget_transformer", "scan_of_scans"])
def test_peak_budget_problems_rank_by_peak_bytes_first(bank, learners, slug):
    problem = bank[slug]
    assert ranking_for(problem) == (PEAK_BYTES, FLOPS)
    graded(learners["ada"], problem, "accepted", at=minutes(0), residual_bytes=1000, peak_bytes=20_000, flops=5)
    graded(learners["grace"], problem, "accepted", at=minutes(1), residual_bytes=9000, peak_bytes=10_000, flops=90)
    graded(learners["alan"], problem, "accepted", at=minutes(2), residual_bytes=9000, peak_bytes=10_000, flops=80)
    assert [name for _, name, _ in table(selectors.problem_board(problem))] == ["alan", "grace", "ada"]


def test_a_rejudge_takes_a_submission_off_the_problem_ranking_until_regraded(dot_policy, learners):
    best = graded(learners["ada"], dot_policy, "accepted", at=minutes(0), residual_bytes=2560)
    second = graded(learners["ada"], dot_policy, "accepted", at=minutes(1), residual_bytes=3584)
    grace = graded(learners["grace"], dot_policy, "accepted", at=minutes(2), residual_bytes=3000)
    assert table(selectors.problem_board(dot_policy))[0] == (1, "ada", best.pk)
    assert services.rejudge_submission(submission_id=best.pk)
    best.refresh_from_db()
    assert (best.status, best.verdict, best.residual_bytes, best.flops) == ("queued", "", None, None)
    assert table(selectors.problem_board(dot_policy)) == [(1, "grace", grace.pk), (2, "ada", second.pk)]
    regrade(best, "accepted", residual_bytes=2048, cost={"flops": 7, "peak_bytes": 8})
    assert table(selectors.problem_board(dot_policy))[0] == (1, "ada", best.pk)
    assert selectors.problem_board(dot_policy).standings[0].residual_bytes == 2048


def test_a_submission_being_graded_cannot_be_rejudged(dot_policy, learner):
    submission = services.create_submission(user=learner, problem=dot_policy, source="x = 1\n", kind="submit")
    assert not services.rejudge_submission(submission_id=submission.pk)  # queued: nothing to redo
    assert not services.rejudge_submission(submission_id=10**9)


def test_a_rejudge_is_enqueued_once_committed(dot_policy, learner, broker, django_capture_on_commit_callbacks):
    submission = graded(learner, dot_policy, "accepted")
    with django_capture_on_commit_callbacks(execute=True):
        assert services.rejudge_submission(submission_id=submission.pk)
    [message] = broker.messages("cpu.background")
    assert (message["task"], message["args"]) == ("submissions.grade_submission", [submission.pk])
    claimed = services.claim_submission(submission_id=submission.pk, task_id=message["id"])
    assert claimed.attempts == 1  # a fresh start: the earlier grading's attempts do not count against it


def test_the_chart_has_one_point_per_strategy_and_its_pareto_front(dot_policy, learners):
    ada, grace, alan, edsger = (learners[n] for n in ("ada", "grace", "alan", "edsger"))
    graded(ada, dot_policy, "accepted", residual_bytes=3584, flops=900, at=minutes(0))
    graded(ada, dot_policy, "accepted", residual_bytes=3584, flops=900, at=minutes(1))  # the same again
    graded(grace, dot_policy, "accepted", residual_bytes=3584, flops=900, at=minutes(2))
    graded(alan, dot_policy, "accepted", residual_bytes=2560, flops=1500, at=minutes(3))
    graded(edsger, dot_policy, "accepted", residual_bytes=4224, flops=1200, at=minutes(4))  # beaten on both
    graded(edsger, dot_policy, "wrong_answer", residual_bytes=1, flops=1, at=minutes(5))  # not accepted: no point
    points = selectors.chart_points(dot_policy)
    assert [(p.flops, p.residual_bytes, p.learners, p.submissions) for p in points] == [
        (900, 3584, 2, 3),
        (1200, 4224, 1, 1),
        (1500, 2560, 1, 1),
    ]
    assert [(p.flops, p.residual_bytes) for p in selectors.front_of(points)] == [(900, 3584), (1500, 2560)]


def test_metrics_are_recorded_from_an_accepted_report_only(dot_policy, learner):
    accepted = graded(learner, dot_policy, "accepted", residual_bytes=3584, flops=160_000, peak_bytes=9000, time_s=1.25)
    assert (
        accepted.residual_bytes,
        accepted.flops,
        accepted.peak_bytes,
        accepted.xla_flops,
        accepted.xla_peak_bytes,
        accepted.grading_time_s,
    ) == (3584, 160_000, 9000, 80_000, 9100, 1.25)
    rejected = graded(learner, dot_policy, "policy_violation", residual_bytes=4224, flops=1, peak_bytes=1)
    assert (rejected.residual_bytes, rejected.flops, rejected.peak_bytes, rejected.grading_time_s) == (
        None,
        None,
        None,
        1.5,
    )


@pytest.mark.parametrize("figure", [float("nan"), float("inf"), "12", True, None, [1]])
def test_a_figure_that_is_not_a_finite_number_is_not_recorded(figure):
    figures = services.metrics_of(
        {
            "verdict": "accepted",
            "residual_bytes": figure,
            "time_s": figure,
            "cost": {"flops": figure, "peak_bytes": 8, "xla_flops": 7.6},
        }
    )
    assert figures["residual_bytes"] is None and figures["flops"] is None and figures["grading_time_s"] is None
    assert figures["peak_bytes"] == 8 and figures["xla_flops"] == 8  # a finite float is rounded
