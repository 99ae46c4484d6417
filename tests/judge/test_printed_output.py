"""Printed output reaches the learner from a child that held sample cases only ("Run samples"):
a graded submission's child also holds the hidden cases, and whatever it prints is not shown, so no
hidden case's size can reach the learner through it, even from a child that escaped the gate.

The hidden cases of ``checkpoint_dot_policy`` are ``tall`` (N=64, d=32) and ``wide`` (N=2, d=48);
its samples are N=8, d=16 and N=4, d=4. Each submission below prints ``SHAPE <N>x<d>`` markers.
"""

import dataclasses
import json
import textwrap
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.grading.text import render_report
from judge.packages.limits import Limits

DOT = Path(__file__).resolve().parents[2] / "problems" / "checkpoint_dot_policy"
SAMPLE_MARKERS = ("SHAPE 8x16", "SHAPE 4x4")
HIDDEN_SIZES = ("64x32", "2x48")

HONEST = """
import jax
import jax.numpy as jnp


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)
"""
CHECKPOINTED = "jax.checkpoint(pipeline, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(w1, w2, x)"


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


def _leaks(report) -> list[str]:
    text = json.dumps(report.to_dict(), default=str) + render_report(report)
    return [size for size in HIDDEN_SIZES if size in text]


def test_running_the_samples_shows_what_they_print_and_grading_shows_nothing(problem):
    source = (
        HONEST
        + f"""
print("loaded")


def checkpoint_dot_policy(w1, w2, x):
    print(f"SHAPE {{x.shape[0]}}x{{x.shape[1]}}")
    return {CHECKPOINTED}
"""
    )
    samples = grade(problem, source, samples_only=True)
    assert samples.verdict == "accepted", samples.message
    assert samples.stdout.startswith("loaded") and all(m in samples.stdout for m in SAMPLE_MARKERS), samples.stdout
    assert "printed output (of the sample cases only):" in render_report(samples)
    graded = grade(problem, source)
    assert graded.verdict == "accepted", graded.message
    assert graded.stdout == "" and _leaks(graded) == []


def test_a_size_kept_from_a_hidden_case_is_not_printed_later(problem):
    # Hidden cases first in the package, and every call (and the export, which traces every case
    # again) prints all the sizes seen so far.
    hidden_first = dataclasses.replace(problem, cases=tuple(sorted(problem.cases, key=lambda c: c.sample)))
    report = grade(
        hidden_first,
        HONEST
        + f"""
seen = []


def checkpoint_dot_policy(w1, w2, x):
    seen.append(f"SHAPE {{x.shape[0]}}x{{x.shape[1]}}")
    print(" ".join(seen))
    return {CHECKPOINTED}
""",
    )
    assert report.verdict == "accepted", report.message
    assert _leaks(report) == [], report.stdout


def test_output_printed_on_hidden_cases_counts_towards_the_limit(problem):
    small = dataclasses.replace(problem, limits=Limits(output_kb=1))
    report = grade(
        small,
        HONEST
        + f"""
def checkpoint_dot_policy(w1, w2, x):
    if x.shape[0] == 64:
        print("SHAPE 64x32 " * 200)
    return {CHECKPOINTED}
""",
    )
    assert report.verdict == "output_limit", report.message
    assert "printed more than 1 KiB" in report.message and "only the sample cases' is shown" in report.message
    assert _leaks(report) == []


def test_printed_output_and_the_error_text_of_a_failing_hidden_case_stay_hidden(problem):
    """Issue 21, item 6: the submission's own exception text names the hidden case's sizes."""
    report = grade(
        problem,
        HONEST
        + textwrap.dedent("""
    def checkpoint_dot_policy(w1, w2, x):
        print(f"SHAPE {x.shape[0]}x{x.shape[1]}")
        if x.shape[1] == 48:
            raise ValueError(f"SHAPE {x.shape[0]}x{x.shape[1]}")
        return jnp.sum(x)
    """),
    )
    assert report.verdict == "runtime_error"
    assert _leaks(report) == [], report.to_dict()
    [wide] = [c for c in report.cases if c.name == "wide"]
    assert wide.message.startswith("your code raised an error on this hidden case")
