"""What counts on an assignment (courses.rules), as plain Python: no database."""

from datetime import datetime, timedelta, timezone

import pytest

from webplatform.courses import rules

T = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
RULES = rules.deadlines(opens_at=T, due_at=T + timedelta(days=7), late_until=T + timedelta(days=9), penalty_percent=30)


def at(days: float, hours: float = 0) -> datetime:
    return T + timedelta(days=days, hours=hours)


def test_the_first_acceptance_by_the_due_time_earns_the_point():
    cell = rules.cell([(1, at(1), "wrong_answer"), (2, at(2), "accepted"), (3, at(8), "accepted")], RULES)
    assert (cell.verdict, cell.submission_id, cell.accepted_at, cell.late, cell.credit) == (
        "accepted",
        2,
        at(2),
        False,
        1.0,
    )
    assert cell.attempts == 3 and cell.outside == 0


def test_an_acceptance_in_the_late_window_earns_the_point_less_the_penalty():
    cell = rules.cell([(1, at(3), "policy_violation"), (2, at(8), "accepted")], RULES)
    assert (cell.verdict, cell.late, cell.credit, cell.submission_id) == ("accepted", True, 0.7, 2)


def test_the_due_time_itself_is_on_time_and_the_late_window_end_is_late():
    assert rules.cell([(1, at(7), "accepted")], RULES).late is False
    assert rules.cell([(1, at(9), "accepted")], RULES).credit == 0.7


def test_submissions_before_the_opening_or_after_the_last_deadline_do_not_count():
    cell = rules.cell([(1, at(-1), "accepted"), (2, at(9, 1), "accepted")], RULES)
    assert (cell.verdict, cell.attempts, cell.outside, cell.credit) == ("", 0, 2, 0.0)
    without_late_window = rules.deadlines(opens_at=T, due_at=at(7), late_until=None, penalty_percent=30)
    assert rules.cell([(1, at(8), "accepted")], without_late_window).credit == 0.0


def test_unsolved_shows_the_verdict_that_came_closest_and_its_latest_attempt():
    cell = rules.cell(
        [
            (1, at(1), "policy_violation"),
            (2, at(2), "compile_error"),
            (3, at(3), "policy_violation"),
            (4, at(4), "wrong_answer"),
        ],
        RULES,
    )
    assert (cell.verdict, cell.submission_id, cell.credit, cell.solved) == ("policy_violation", 3, 0.0, False)


def test_an_extension_moves_the_due_time_and_the_late_window_keeps_its_length():
    extended = rules.deadlines(opens_at=T, due_at=at(7), late_until=at(9), penalty_percent=30, extended_to=at(10))
    assert (extended.due_at, extended.late_until) == (at(10), at(12))
    assert rules.cell([(1, at(9, 5), "accepted")], extended).late is False
    assert rules.cell([(1, at(11), "accepted")], extended).credit == 0.7


def test_a_score_adds_the_credits_over_the_assignments_problems():
    cells = [rules.cell([(1, at(1), "accepted")], RULES), rules.cell([(2, at(8), "accepted")], RULES), rules.EMPTY]
    score = rules.score(cells)
    assert (score.points, score.out_of, score.solved, score.late) == (1.7, 3, 2, 1)
    assert round(score.percent, 1) == 56.7


def test_a_weighted_score_counts_each_problem_times_its_weight_out_of_the_weights_total():
    cells = [rules.cell([(1, at(1), "accepted")], RULES), rules.cell([(2, at(8), "accepted")], RULES), rules.EMPTY]
    score = rules.score(cells, [5, 2, 0])
    assert (score.points, score.out_of, score.solved, score.problems) == (6.4, 7, 2, 3)  # 5 + 2 x 0.7
    with pytest.raises(ValueError):
        rules.score(cells, [1, 1])
