"""``manage.py seed_demo``: a realistic graded history, and on it the rankings agree with a
straightforward reimplementation of their rules in Python (the oracle below walks every row; the
site never does)."""

import math
from collections import defaultdict
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count

from judge.data import verdicts
from webplatform.leaderboard import selectors
from webplatform.leaderboard.metrics import ranking_for
from webplatform.leaderboard.rules import PENALTY_PER_REJECTION_MIN
from webplatform.leaderboard.services import DEMO_PREFIX
from webplatform.submissions.models import Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(bank):
    out = StringIO()
    call_command("seed_demo", users=40, submissions=1500, seed=7, stdout=out)
    return out.getvalue()


def oracle_global(rows) -> list[tuple]:
    """(rank, user id, solved, penalty) by the rules stated on the page."""
    by_pair = defaultdict(list)
    for row in rows:
        by_pair[(row.user_id, row.problem_id)].append(row)
    totals = defaultdict(lambda: [0, 0, None])  # solved, penalty, last first acceptance
    for (user_id, _), subs in by_pair.items():
        subs.sort(key=lambda s: s.created_at)
        first_ac = next((s.created_at for s in subs if s.verdict == verdicts.ACCEPTED), None)
        if first_ac is None:
            continue
        rejected = sum(1 for s in subs if s.created_at < first_ac)
        minutes = math.floor((first_ac - subs[0].created_at).total_seconds() / 60)  # whole minutes
        total = totals[user_id]
        total[0] += 1
        total[1] += minutes + PENALTY_PER_REJECTION_MIN * rejected
        total[2] = first_ac if total[2] is None else max(total[2], first_ac)
    order = sorted(totals.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[1][2], kv[0]))
    ranked, previous = [], None
    for position, (user_id, (solved, penalty, last)) in enumerate(order, start=1):
        rank = ranked[-1][0] if previous == (solved, penalty, last) else position
        ranked.append((rank, user_id, solved, penalty))
        previous = (solved, penalty, last)
    return ranked


def test_the_seeded_history_looks_like_a_real_one(seeded):
    assert "created 40 learners" in seeded and "1500 submissions" in seeded
    demo = Submission.objects.filter(user__username__startswith=DEMO_PREFIX)
    assert demo.count() == 1500 and not demo.exclude(status="done").exists()
    assert set(demo.values_list("verdict", flat=True)) >= {"accepted", "wrong_answer", "policy_violation"}
    assert set(demo.values_list("kind", flat=True)) == {"run", "submit"}
    accepted = demo.filter(kind="submit", verdict="accepted")
    assert not accepted.filter(flops=None).exists() and not accepted.filter(peak_bytes=None).exists()
    assert not demo.exclude(verdict="accepted").exclude(residual_bytes=None).exists()
    assert not demo.filter(kind="run").exclude(flops=None).exists()  # sample runs are not measured
    per_learner = sorted(demo.values("user").annotate(n=Count("id")).values_list("n", flat=True))
    assert per_learner[-1] > 5 * per_learner[len(per_learner) // 2]  # a few learners do much more


def test_the_global_ranking_agrees_with_the_rules_on_seeded_data(seeded):
    counted = list(selectors.counted_submissions().filter(selectors.CURRENT))
    expected = oracle_global(counted)
    got = [(r.rank, r.user_id, r.solved, r.penalty) for r in selectors.global_board().standings]
    assert got == expected and len(got) > 20 and len({row[2] for row in got}) > 3


def test_every_problem_ranking_agrees_with_the_rules_on_seeded_data(seeded, bank):
    for problem in bank.values():
        fields = [m.field for m in ranking_for(problem)]
        best = {}
        for s in selectors.accepted_submissions(problem):
            key = tuple(getattr(s, f) for f in fields) + (s.created_at, s.pk)
            if s.user_id not in best or key < best[s.user_id][0]:
                best[s.user_id] = (key, s.pk)
        expected = [pk for _, pk in sorted(best.values())]
        assert [e.submission_id for e in selectors.problem_board(problem).standings] == expected, problem.slug


def test_seeding_twice_needs_a_reset(seeded):
    with pytest.raises(CommandError, match="--reset"):
        call_command("seed_demo", users=5, submissions=50, stdout=StringIO())
    out = StringIO()
    call_command("seed_demo", users=5, submissions=50, reset=True, stdout=out)
    assert "deleted 40 demo learners" in out.getvalue()
    assert Submission.objects.filter(user__username__startswith=DEMO_PREFIX).count() == 50
