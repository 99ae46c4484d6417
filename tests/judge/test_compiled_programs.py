"""A learner's program graded again loads what the verifier compiled the first time, and reads the same.

The grading parent keeps the verifier's executable by what it sent (``judge.grading.compiled_programs``).
What a learner cares about: the second grading of the same program (a resubmission, a sample run
then a submission) gives the very same verdict, message and figures as the first, whether the program is
right or wrong; and nothing one learner's gradings kept is ever loaded for another learner.
"""

from pathlib import Path

import numpy as np
import pytest

from judge import grade, load_problem
from judge.grading import compiled_programs
from judge.grading.expected import ExpectedCache
from tests.judge.runners import Wrapping

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"
RIGHT = (DOT / "submissions" / "accepted" / "decorator.py").read_text()
RIGHT_WITH_A_COMMENT = "# my second try: same code\n" + RIGHT
WRONG = (DOT / "submissions" / "wrong_answer" / "forgot_square.py").read_text()
VIOLATION = (DOT / "submissions" / "policy_violation" / "dots_saveable.py").read_text()


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


@pytest.fixture(scope="module")
def expected():
    return ExpectedCache()


@pytest.fixture
def store(monkeypatch):
    fresh = compiled_programs.CompiledPrograms()
    monkeypatch.setattr(compiled_programs, "STORE", fresh)
    return fresh


class Counting(Wrapping):
    """The shared runner, counting the verifier requests that carried a kept executable."""

    def __init__(self):
        super().__init__()
        self.loaded = 0

    def prepare(self, limits, role="run"):
        prepared, counting = self.inner.prepare(limits, role), self

        class Watched:
            def run(self, request, limits):
                if request.get("kind") == "verify" and request.get("compiled") is not None:
                    counting.loaded += 1
                return prepared.run(request, limits)

            def discard(self):
                prepared.discard()

        return Watched()


def _seen(report) -> dict:
    """Everything of a report that a learner reads, but its time."""
    seen = report.to_dict()
    seen.pop("time_s", None)
    return seen


@pytest.mark.parametrize(
    "source, verdict",
    [(RIGHT, "accepted"), (WRONG, "wrong_answer"), (VIOLATION, "policy_violation")],
    ids=["accepted", "wrong_answer", "policy_violation"],
)
def test_a_program_graded_again_reads_the_same_from_the_kept_executable(problem, expected, store, source, verdict):
    runner = Counting()
    first = grade(problem, source, runner=runner, expected_cache=expected, scope="learner-1", measure_cost=True)
    again = grade(problem, source, runner=runner, expected_cache=expected, scope="learner-1", measure_cost=True)
    assert runner.loaded == 1 and store.hits == 1, "the second grading did not load the kept executable"
    assert first.verdict == verdict and _seen(again) == _seen(first)
    if verdict == "accepted":  # the figures of the step, XLA's kept beside the executable included
        assert again.cost is not None and again.cost.xla_peak_bytes and again.cost.flops


def test_the_same_program_with_other_comments_and_lines_is_the_same_program(problem, expected, store):
    runner = Counting()
    grade(problem, RIGHT, runner=runner, expected_cache=expected, scope="learner-1")
    report = grade(problem, RIGHT_WITH_A_COMMENT, runner=runner, expected_cache=expected, scope="learner-1")
    assert report.verdict == "accepted" and runner.loaded == 1


def test_nothing_one_learner_kept_is_loaded_for_another(problem, expected, store):
    runner = Counting()
    grade(problem, RIGHT, runner=runner, expected_cache=expected, scope="learner-1")
    report = grade(problem, RIGHT, runner=runner, expected_cache=expected, scope="learner-2")
    assert report.verdict == "accepted" and runner.loaded == 0 and store.hits == 0
    assert len(store) == 2  # each learner's own


def test_without_a_scope_nothing_is_kept(problem, expected, store):
    runner = Counting()
    for _ in range(2):
        assert grade(problem, RIGHT, runner=runner, expected_cache=expected).verdict == "accepted"
    assert runner.loaded == 0 and len(store) == 0


def test_a_kept_executable_that_does_not_load_is_compiled_again_and_the_verdict_stands(problem, expected, store):
    """Damaged bytes (or another JAX's executable) cost a compilation, never a verdict."""
    runner = Counting()
    first = grade(problem, WRONG, runner=runner, expected_cache=expected, scope="learner-1")
    [(scope_key, entry)] = list(store._entries.items())
    entry.executable = np.frombuffer(b"not an executable" * 64, dtype=np.uint8)
    again = grade(problem, WRONG, runner=runner, expected_cache=expected, scope="learner-1")
    assert runner.loaded == 1
    assert _seen(again) == _seen(first) and again.verdict == "wrong_answer"


def test_a_different_program_is_not_the_kept_one(problem, expected, store):
    """The key is the program's bytes and types: a wrong program never runs a right one's executable."""
    runner = Counting()
    grade(problem, RIGHT, runner=runner, expected_cache=expected, scope="learner-1")
    report = grade(problem, WRONG, runner=runner, expected_cache=expected, scope="learner-1")
    assert report.verdict == "wrong_answer" and runner.loaded == 0


def test_the_store_holds_its_bound_dropping_the_least_recently_used():
    store = compiled_programs.CompiledPrograms(total_cap=2500, entry_cap=1500)
    blob = np.zeros(1000, np.uint8)
    for name in "abc":
        store.put("s", name, blob)
    assert store.get("s", "a") is None and store.get("s", "c") is not None  # a went first
    store.put("s", "big", np.zeros(2000, np.uint8))  # over one entry's cap: not kept
    assert store.get("s", "big") is None and len(store) == 2
