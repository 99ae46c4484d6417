"""Cases marked ``figures_only``: a model's real sizes, judged from the programs without running them.

``llama_swiglu_mlp`` has one (``llama-7b``: a 4096-wide SwiGLU MLP on 2048 tokens, 0.7 GB of
arrays); its arrays are never drawn, the child traces placeholders and the verifier measures the
exported programs (``judge.grading.graded_cases``). Its residuals, structure and cost are judged
as any case's, its values are not, and what the verdict rests on is still the verifier's.
"""

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from judge import PackageError, grade, load_problem
from judge.grading import pipeline
from judge.grading.grader import CONTRADICTED, ExpectedCache
from tests.judge.runners import Wrapping

ROOT = Path(__file__).resolve().parents[2]
LLAMA = ROOT / "problems" / "llama_swiglu_mlp"
REAL = "f32[2048,11008]"

# Right at the small sizes; at the real ones, no checkpoint at all (a shape decides at trace time).
ONLY_SMALL = """
import jax
from jax.ad_checkpoint import checkpoint_name


def block(w_gate, w_up, w_down, x):
    gate = checkpoint_name(x @ w_gate, "gate")
    up = checkpoint_name(x @ w_up, "up")
    return x + (jax.nn.silu(gate) * up) @ w_down


def swiglu_mlp(w_gate, w_up, w_down, x):
    if x.shape[0] > 1000:
        return block(w_gate, w_up, w_down, x)
    policy = jax.checkpoint_policies.save_only_these_names("gate", "up")
    return jax.checkpoint(block, policy=policy)(w_gate, w_up, w_down, x)
"""


@pytest.fixture(scope="module")
def problem():
    return load_problem(LLAMA)


@pytest.fixture(scope="module")
def expected():
    return ExpectedCache(None)


def test_the_case_is_read_as_figures_only(problem):
    assert [(c.name, c.figures_only) for c in problem.cases] == [
        ("llama-7b", True),
        ("sample-1", False),
        ("tokens", False),
    ]


def test_a_package_whose_cases_are_all_figures_only_is_refused(tmp_path):
    folder = tmp_path / "llama_swiglu_mlp"
    shutil.copytree(LLAMA, folder)
    path = folder / "problem.toml"
    text = path.read_text().replace("sample = true\nseed", "sample = true\nfigures_only = true\nseed")
    path.write_text(text.replace('name = "tokens"\n', 'name = "tokens"\nfigures_only = true\n'))
    with pytest.raises(PackageError) as info:
        load_problem(folder)
    assert "at least one case must compare values (figures_only = false)" in str(info.value)


def test_the_real_sizes_are_judged_without_drawing_their_arrays(problem, expected, monkeypatch):
    drawn = []
    real = pipeline.case_inputs
    monkeypatch.setattr(
        pipeline, "case_inputs", lambda p, case, *a, **k: drawn.append(case.name) or real(p, case, *a, **k)
    )
    report = grade(problem, problem.reference, expected_cache=expected)
    assert report.verdict == "accepted", report.message
    assert "llama-7b" not in drawn and {"sample-1", "tokens"} <= set(drawn)
    rows = {c.name: c for c in report.cases}
    assert rows["llama-7b"].verdict == "accepted" and rows["llama-7b"].max_error is None
    assert rows["sample-1"].max_error is not None
    # the first sample is the real one: its residual table and figures are what the learner sees
    assert sorted(r.type for r in report.residuals if r.kind == "named") == [REAL, REAL]
    assert report.residual_bytes == 3 * 4096 * 11008 * 4 + 2048 * 4096 * 4 + 2 * 2048 * 11008 * 4
    assert report.cost is not None and 1.4e9 < report.cost.peak_bytes < problem.cost_rules.max_peak_bytes


def test_what_differs_only_at_the_real_sizes_is_caught_there(problem, expected):
    report = grade(problem, ONLY_SMALL, expected_cache=expected)
    rows = {c.name: c for c in report.cases}
    assert rows["sample-1"].verdict == rows["tokens"].verdict == "accepted"
    assert rows["llama-7b"].verdict == "policy_violation", rows["llama-7b"].message
    assert report.verdict == "policy_violation"
    assert report.cause.startswith("Your program has no jax.checkpoint"), report.cause
    assert report.advice.startswith("Try: ")


class ForgedShapes(Wrapping):
    """A child whose code escaped the gate: asked to trace placeholders, it answers with the
    reference's report of them, while the programs the verifier measures are its own."""

    def __init__(self, reference: str):
        super().__init__()
        self.reference = reference
        self.remat3 = self.inner.remat3
        self.forged = 0

    def run(self, request, limits):
        real = self.inner.run(request, limits)
        if request.get("kind") != "trace_shapes" or real.outcome != "ok":
            return real
        honest = self.inner.run(dict(request, trace=dict(request["trace"], source=self.reference)), limits)
        self.forged += 1
        return replace(real, response=dict(honest.response, programs=real.response["programs"]))


def test_a_forged_report_of_the_real_sizes_is_not_believed(problem, expected):
    forged = ForgedShapes(problem.reference)
    report = grade(problem, ONLY_SMALL, runner=forged, expected_cache=expected)
    assert forged.forged == 1
    assert report.verdict == "policy_violation", report.message
    assert CONTRADICTED in report.notes
    rows = {c.name: c for c in report.cases}
    assert rows["llama-7b"].verdict == "policy_violation" and rows["sample-1"].verdict == "accepted"


def _with_residual_limit(tmp_path, limit: int):
    folder = tmp_path / str(limit) / "llama_swiglu_mlp"
    shutil.copytree(LLAMA, folder)
    path = folder / "problem.toml"
    text = path.read_text()
    path.write_text(text.replace("[checks.residuals]\n", f"[checks.residuals]\nmax_bytes = {limit}\n", 1))
    return load_problem(folder)


def test_a_residual_limit_binds_at_the_real_sizes_it_is_written_for(tmp_path):
    """The reference keeps the gate and up products of 2048 tokens by 11008 (two f32 arrays of 90 MB)
    at the real sizes and a few KiB at the small ones: a 10 MB limit on what stays on the device is
    over at the real sizes only, and the verifier's types of that program decide it (its values are
    never made, so there are none to count). Before, the limit counted only values, and passed."""
    tight = _with_residual_limit(tmp_path, 10_000_000)
    refused = grade(tight, tight.reference)
    assert refused.verdict == "policy_violation", refused.message
    assert "case llama-7b" in refused.message and "at most 10000000" in refused.message, refused.message
    roomy = _with_residual_limit(tmp_path, 1_000_000_000)
    assert grade(roomy, roomy.reference).verdict == "accepted"
