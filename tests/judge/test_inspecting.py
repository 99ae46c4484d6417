"""Inspect before submitting (``judge.grading.inspecting``) and the memory of one gradient step over time
(``judge.inspection.timeline.step_timeline``): the walk that counts the step's peak bytes, written
down operation by operation."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge import load_problem
from judge.data import verdicts
from judge.data.evidence import Cost, Timeline
from judge.data.messages import Malformed
from judge.data.report import Report
from judge.grading.grader import default_runner
from judge.grading.inspecting import inspect

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"

NO_CHECKPOINT = """import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)
"""


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


@pytest.fixture(scope="module")
def inspected(problem):
    return {
        "reference": inspect(problem, problem.reference, default_runner()),
        "plain": inspect(problem, NO_CHECKPOINT, default_runner()),
    }


def test_inspect_lists_what_the_code_saves_with_no_verdict(inspected):
    reference, plain = inspected["reference"], inspected["plain"]
    assert reference.verdict == "" and plain.verdict == ""
    # the required policy keeps the three inputs and the two matmul outputs
    assert [r.what for r in reference.residuals] == ["w1", "w2", "x", "dot_general", "dot_general"]
    assert [c.policy_text for c in reference.structure.checkpoints] == ["dots_with_no_batch_dims_saveable"]
    assert plain.structure.checkpoints == [] and plain.residual_bytes > reference.residual_bytes
    assert not any(r.offending for r in plain.residuals)  # nothing is judged
    assert "forward" in reference.programs and reference.cost.peak_bytes > 0


def test_inspect_measures_the_step_as_a_verdict_does(problem, inspected):
    """Issue 21: the figures are the verifier's, on the program it compiled, so that Inspect and
    the verdict never disagree; the timeline is the picture of the same step."""
    from judge import grade

    graded = grade(problem, problem.reference, samples_only=True, measure_cost=True)
    reference = inspected["reference"]
    assert (reference.cost.peak_bytes, reference.cost.flops) == (graded.cost.peak_bytes, graded.cost.flops)
    assert reference.residual_bytes == graded.residual_bytes


def test_the_timeline_is_the_walk_of_the_step(inspected):
    for report in inspected.values():
        timeline = report.cost.timeline
        assert timeline.peak_bytes > 0
        assert 0 < timeline.backward_from < len(timeline.steps)
        assert not any(s.backward for s in timeline.steps[: timeline.backward_from])
        assert all(s.backward for s in timeline.steps[timeline.backward_from :])
        assert not any(s.recomputed for s in timeline.steps[: timeline.backward_from])  # forward: never
        assert len(timeline.residuals) == len(report.residuals)
        for span in timeline.residuals:  # made before the backward pass, read in it (if at all)
            assert span.made < timeline.backward_from
            assert span.first_use is None or timeline.backward_from <= span.first_use <= span.last_use
        assert all(span.first_use is not None for span in timeline.residuals if span.made == -1)  # the inputs


def test_a_checkpoint_recomputes_on_the_backward_pass_and_no_checkpoint_does_not(inspected):
    recomputed = lambda report: [s.primitive for s in report.cost.timeline.steps if s.recomputed]  # noqa: E731
    assert "max" in recomputed(inspected["reference"])  # the relu, dropped by the policy, made again
    assert "max" not in recomputed(inspected["plain"])
    lines = {s.line for s in inspected["plain"].cost.timeline.steps if s.primitive == "dot_general" and not s.backward}
    assert lines == {6, 7}  # in the learner's lines


def test_inspect_says_why_code_that_does_not_run_cannot_be_inspected(problem):
    report = inspect(problem, "def checkpoint_dot_policy(w1, w2, x):\n    return undefined_name\n", default_runner())
    assert report.verdict == verdicts.RUNTIME_ERROR and "undefined_name" in report.message
    refused = inspect(problem, "import os\n", default_runner())
    assert refused.verdict in verdicts.VERDICTS and refused.verdict != verdicts.ACCEPTED


def test_the_timeline_travels_and_old_reports_read_without_it(inspected):
    report = inspected["reference"]
    again = Report.from_dict(report.to_dict())
    assert again.cost.timeline == report.cost.timeline
    assert Report.from_dict({"verdict": "accepted", "cost": {"flops": 1.0, "peak_bytes": 8}}).cost.timeline is None
    assert Cost.from_dict({"flops": 1.0, "peak_bytes": 8}) == Cost(flops=1.0, peak_bytes=8)
    wire = report.cost.to_wire()
    assert Cost.from_wire(wire).timeline == report.cost.timeline
    broken = wire | {"timeline": wire["timeline"] | {"residuals": [[0, 8, 10**6, None, None]]}}
    with pytest.raises(Malformed, match="a step the timeline does not have"):
        Cost.from_wire(broken)  # a step past the end of the step
    assert Timeline.from_dict({}).peak_bytes == 0


BANK = sorted(p.name for p in (ROOT / "problems").iterdir() if (p / "problem.toml").exists())


@pytest.mark.slow
@pytest.mark.parametrize("slug", BANK)
def test_every_references_timeline_reaches_its_peak_and_places_its_residuals(slug):
    """Scans, loops, nested checkpoints, custom rules, offloading: the walk written down is the
    walk that counted the peak, and every saved residual is placed on it."""
    problem = load_problem(ROOT / "problems" / slug)
    report = inspect(problem, problem.reference, default_runner())
    assert report.verdict == "", report.message
    timeline = report.cost.timeline
    assert timeline.peak_bytes > 0 and report.cost.peak_bytes > 0
    assert 0 < timeline.backward_from < len(timeline.steps)
    held = {span.index for span in timeline.residuals}
    assert held <= set(range(len(report.residuals)))
    assert {i for i, r in enumerate(report.residuals) if r.kind not in ("literal", "constant")} <= held | {
        i for i, r in enumerate(report.residuals) if r.bytes == 0
    }
