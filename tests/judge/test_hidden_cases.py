"""A hidden case's message is made from trusted facts with its sizes left out (issue 21, item 6):
no array type, shape, byte count or step count of a hidden case reaches the learner, whatever the
submission's own process wrote."""

import re
from pathlib import Path

import pytest

from judge import grade, load_problem
from tests.grading_cache import graded_as_the_bank

ROOT = Path(__file__).resolve().parents[2]
WRONG = [
    p
    for slug in ("checkpoint_dot_policy", "scan_over_layers", "attention_keep_qkv", "offload_some_names")
    for p in sorted((ROOT / "problems" / slug / "submissions" / "policy_violation").glob("*.py"))
]


@pytest.mark.parametrize("path", WRONG, ids=[f"{p.parts[-4]}/{p.stem}" for p in WRONG])
def test_a_hidden_cases_message_tells_no_size(path):
    report = graded_as_the_bank(load_problem(path.parents[2]), path.read_text())
    assert report.verdict == "policy_violation"
    hidden = [c for c in report.cases if not c.sample and not c.skipped]
    assert hidden
    for case in hidden:
        words = re.sub(r"line \d+", "line", case.message)
        numbers = re.findall(r"(?<![\w.'])\d+(?![\w.'])", words)  # not in a name such as 'h2'
        assert case.message and not numbers and not re.search(r"\[\d", words), (case.name, case.message)


# A submission that behaves differently on hidden cases, to carry their sizes out through any field
# of the report: wrong on the samples on purpose (so that no sample's figures come first), right on
# the hidden cases but off by a factor of its sizes inside the tolerance; or right on the samples and
# wrong on the hidden cases by a value made of their sizes.
SIGNALLER = """
import jax
import jax.numpy as jnp


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    out = jax.checkpoint(_pipeline, policy=policy)(w1, w2, x)
    n, d = x.shape
    if (n, d) in ((8, 16), (4, 4)):
        return SAMPLES
    return HIDDEN
"""
SIGNALS = {
    "wrong samples, hidden sizes inside the tolerance": ("out + 1.0", "out * (1 + 1e-9 * (1000 * n + d))"),
    "right samples, hidden sizes as the answer": ("out", "out * 0 + 1000.0 * n + d"),
}


@pytest.mark.parametrize("signal", SIGNALS)
def test_no_field_of_the_report_carries_a_hidden_cases_figures(signal):
    samples, hidden = SIGNALS[signal]
    problem = load_problem(ROOT / "problems" / "checkpoint_dot_policy")
    report = grade(problem, SIGNALLER.replace("SAMPLES", samples).replace("HIDDEN", hidden))
    assert report.verdict == "wrong_answer"
    hidden_rows = [c for c in report.cases if not c.sample]
    assert [c.name for c in hidden_rows] == ["tall", "wide"]
    for row in hidden_rows:
        assert row.max_error is None, row  # a figure the submission modulates
        assert not re.search(r"\d", row.message), row.message
    samples_compared = [c for c in report.cases if c.sample and c.verdict != "wrong_answer"]
    if not samples_compared:  # no sample reached the cost: none is shown, not a hidden case's
        assert report.cost is None and report.residuals == [] and report.structure is None
    text = str(report.to_dict())
    for size in ("64032", "2048", "64.032", "2.048"):  # 1000 * n + d of the hidden cases, as numbers or scaled
        assert size not in text, (size, text)
