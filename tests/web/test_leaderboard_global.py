"""The global ranking on a hand-built scenario: problems solved, then penalty (minutes from the
first submission to the first acceptance, plus 20 per rejected submission before it), then the
time of the last first acceptance; equal rows share a rank. Only recorded submissions on current
versions count; a rejudge changes the ranking at once."""

from datetime import datetime, timezone

import pytest
from django.utils import timezone as django_timezone

from webplatform.catalog.models import Problem
from webplatform.catalog.services import sync_problems
from webplatform.leaderboard import periods, selectors
from webplatform.submissions import services

from .helpers import DOT_POLICY, copy_package
from .scenario import five_learners, graded, minutes, regrade

pytestmark = pytest.mark.django_db


def table(board) -> list[tuple]:
    """(rank, username, solved, penalty) of each row, best first."""
    names = selectors.usernames(row.user_id for row in board.standings)
    return [(row.rank, names[row.user_id], row.solved, row.penalty) for row in board.standings]


@pytest.fixture
def scenario(bank, make_user):
    return five_learners(bank, make_user)


def test_ranks_by_solved_then_penalty_then_last_acceptance_and_ties_share_a_rank(scenario):
    assert table(selectors.global_board()) == [
        (1, "ada", 2, 50),
        (1, "barbara", 2, 50),
        (3, "edsger", 2, 50),
        (4, "grace", 2, 60),
        (5, "alan", 1, 0),
    ]
    last = {row.user_id: row.last_accepted for row in selectors.global_board().standings}
    assert last[scenario["users"]["edsger"].pk] == minutes(90)


def test_a_rejudge_changes_the_ranking_at_once(scenario):
    ada = scenario["users"]["ada"]
    before = selectors.global_board()  # computed, and cached until the grading state moves
    accepted_b = ada.submissions.get(problem=scenario["b"], verdict="accepted")
    assert services.rejudge_submission(submission_id=accepted_b.pk)
    # Being graded again, it counts for nothing: her later policy_violation leaves B unsolved.
    expected = [(1, "barbara", 2, 50), (2, "edsger", 2, 50), (3, "grace", 2, 60), (4, "alan", 1, 0), (5, "ada", 1, 50)]
    assert table(selectors.global_board()) == expected
    regrade(accepted_b, "wrong_answer")
    assert table(selectors.global_board()) == expected
    assert table(before)[0] == (1, "ada", 2, 50)  # a cached ranking is never changed in place


def test_a_rejudge_that_accepts_a_rejected_submission_removes_its_penalty(scenario):
    grace = scenario["users"]["grace"]
    rejected = grace.submissions.get(problem=scenario["b"], verdict="wrong_answer")
    assert services.rejudge_submission(submission_id=rejected.pk)
    regrade(rejected, "accepted", residual_bytes=3584)
    # B is now solved on the first try (minute 5): no penalty at all, and grace leads.
    assert table(selectors.global_board()) == [
        (1, "grace", 2, 0),
        (2, "ada", 2, 50),
        (2, "barbara", 2, 50),
        (4, "edsger", 2, 50),
        (5, "alan", 1, 0),
    ]


def test_only_the_current_version_counts_until_a_rejudge_grades_a_submission_on_it(make_user, tmp_path):
    folder = copy_package(DOT_POLICY, tmp_path, "versioned")
    sync_problems(root=tmp_path)
    problem = Problem.objects.get(slug="versioned")
    linus = make_user("linus")
    old = graded(linus, problem, "accepted", at=minutes(0))
    assert table(selectors.global_board()) == [(1, "linus", 1, 0)]
    # A new version is published: what was accepted on the old one no longer counts.
    (folder / "statement.md").write_text((folder / "statement.md").read_text() + "\nOne more sentence.\n")
    sync_problems(root=tmp_path)
    problem.refresh_from_db()
    assert problem.current_version_id != old.version_id
    assert table(selectors.global_board()) == []
    assert services.rejudge_submission(submission_id=old.pk)
    assert regrade(old, "accepted").version_id == problem.current_version_id
    assert table(selectors.global_board()) == [(1, "linus", 1, 0)]


def test_a_retired_problem_leaves_the_ranking(scenario):
    Problem.objects.filter(pk=scenario["c"].pk).update(is_active=False, updated_at=django_timezone.now())
    assert [name for _, name, _, _ in table(selectors.global_board())] == ["ada", "barbara", "edsger", "grace"]


@pytest.mark.parametrize(
    "tag, expected",
    [
        ("names", [(1, "ada", 1, 0), (2, "edsger", 1, 0), (3, "barbara", 1, 50), (4, "grace", 1, 60)]),
        ("policies", [(1, "ada", 2, 50), (1, "barbara", 2, 50), (3, "edsger", 2, 50), (4, "grace", 2, 60)]),
        ("basics", [(1, "alan", 1, 0)]),
        ("no-such-tag", []),
    ],
)
def test_the_tag_filter_ranks_on_the_tagged_problems_only(scenario, tag, expected):
    assert table(selectors.global_board(tag=tag)) == expected


def test_a_period_counts_the_problems_first_accepted_in_it_with_their_whole_penalty(scenario):
    # From minute 20: barbara's and grace's A (first accepted at 0 and 10) and alan's C fall
    # before it; what falls inside keeps the penalty it took to get there (ada's A: 50).
    assert table(selectors.global_board(since=minutes(20))) == [
        (1, "ada", 2, 50),
        (2, "edsger", 2, 50),
        (3, "barbara", 1, 50),
        (4, "grace", 1, 60),
    ]
    # Accepting a problem again later does not make it new: barbara's A again at minute 70.
    assert [name for _, name, _, _ in table(selectors.global_board(since=minutes(65)))] == ["edsger"]


@pytest.mark.parametrize(
    "now, week, month",
    [
        (
            datetime(2026, 3, 18, 15, 30, tzinfo=timezone.utc),
            datetime(2026, 3, 16, tzinfo=timezone.utc),
            datetime(2026, 3, 1, tzinfo=timezone.utc),
        ),
        # A Sunday night belongs to the week that began on Monday; a week may begin last month.
        (
            datetime(2026, 3, 1, 23, 59, tzinfo=timezone.utc),
            datetime(2026, 2, 23, tzinfo=timezone.utc),
            datetime(2026, 3, 1, tzinfo=timezone.utc),
        ),
        (
            datetime(2026, 3, 16, 0, 0, tzinfo=timezone.utc),
            datetime(2026, 3, 16, tzinfo=timezone.utc),
            datetime(2026, 3, 1, tzinfo=timezone.utc),
        ),
    ],
)
def test_periods_start_on_monday_and_on_the_first_of_the_month(now, week, month):
    assert periods.start_of("week", now) == week and periods.start_of("month", now) == month
    assert periods.start_of("all", now) is None
    assert periods.parse("week") == "week" and periods.parse("fortnight") == periods.parse(None) == "all"
