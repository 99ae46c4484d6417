"""Every problem of the bank proves its checker: `python -m judge validate` on each of them."""
from pathlib import Path

import pytest

from judge import load_problem, verdicts
from judge.validate import validate

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = sorted(p for p in (ROOT / "problems").iterdir() if (p / "problem.toml").exists())


def test_the_bank_has_the_first_problems():  # the grading engine issue's four
    assert {"checkpoint_dot_policy", "checkpoint_per_layer", "checkpoint_names",
            "recursive_checkpoint"} <= {p.name for p in PROBLEMS}


@pytest.mark.parametrize("folder", PROBLEMS, ids=[p.name for p in PROBLEMS])
def test_problem_validates(folder):
    problem = load_problem(folder)
    result = validate(problem)
    failures = [f"{r.submission}: expected {r.expected}, got {r.actual}: {r.message}" for r in result.rows if not r.ok]
    assert result.ok, "\n".join(failures + result.errors)
    assert problem.submissions.get(verdicts.ACCEPTED)
    assert problem.submissions.get(verdicts.POLICY_VIOLATION), "a checkpoint problem must show a policy_violation"
