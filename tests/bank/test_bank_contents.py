"""What every problem of the bank gives a learner, and the messages its checker gives back."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from judge import grade, load_problem
from tests.grading_cache import graded_as_the_bank

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = sorted(p for p in (ROOT / "problems").iterdir() if (p / "problem.toml").exists())
IDS = [p.name for p in PROBLEMS]


def test_the_bank_covers_the_checkpoint_surface():
    expected = {
        "checkpoint_per_layer",
        "checkpoint_names",
        "recursive_checkpoint",
        "checkpoint_dot_policy",
        "where_to_checkpoint",
        "save_any_names_but_these",
        "save_anything_except_these_names",
        "dots_with_batch_dims",
        "save_from_both_policies",
        "scan_over_layers",
        "static_argnums_training_flag",
        "prevent_cse_in_scan",
        "write_a_policy",
        "fix_the_checkpoint",
        "memory_budget_mlp",
        # wave 2
        "attention_keep_qkv",
        "scan_of_scans",
        "recompute_constants",
        "compile_time_eval",
        "linearize_keeps",
        "memory_budget_transformer",
        "equinox_filter_checkpoint",
        "equinox_scan_layers",
        "offload_dots_to_host",
        "offload_some_names",
        # the policy explorer's
        "fit_the_budget",
    }
    assert expected <= set(IDS) and len(IDS) >= 26


@pytest.mark.parametrize("folder", PROBLEMS, ids=IDS)
def test_problem_teaches(folder):
    problem = load_problem(folder)
    statement = problem.statement.lower()
    for section in ("why it matters", "pitfalls", "task"):
        assert f"## {section}" in statement, f"{problem.slug}: statement lacks '{section}'"
    assert "```" in problem.statement, f"{problem.slug}: statement needs a worked example"
    assert 2 <= len(problem.hints) <= 3
    assert len(problem.explanation) > 200
    assert problem.difficulty and problem.tags
    assert len(problem.submissions.get("accepted", [])) >= 2, "several accepted styles"
    assert problem.starter.strip() and problem.entry in problem.starter


def grade_packaged(slug: str, relative: str):
    """The packaged file's grading under the default remat: the one every bank test reads."""
    problem = load_problem(ROOT / "problems" / slug)
    return graded_as_the_bank(problem, (problem.path / "submissions" / relative).read_text())


@pytest.mark.parametrize("relative", ["policy_violation/whole_pipeline.py", "policy_violation/only_last_stage.py"])
def test_a_checkpoint_that_cannot_save_memory_is_told_why(relative):
    report = grade_packaged("where_to_checkpoint", relative)
    assert report.verdict == "policy_violation"
    assert "saves no memory" in report.message and "while it still holds everything else it kept" in report.message
    # measured, not guessed from its shape: it holds what the reference's program without checkpoints holds
    held, plain = map(
        int,
        re.search(
            r"\((\d+) bytes of saved and recomputed values at once; (\d+) without any "
            r"checkpoint\)",
            report.message,
        ).groups(),
    )
    assert held == report.cost.held_peak_bytes and held >= plain


def test_scan_residuals_are_read_stacked_over_layers():
    report = grade_packaged("scan_over_layers", "policy_violation/no_checkpoint.py")
    assert report.verdict == "policy_violation"
    stacked = [r for r in report.residuals if r.stacked == 4]
    assert stacked and all(r.shape[0] == 4 for r in stacked)
    assert "stacked over 4 scan steps" in report.message


def test_the_broken_library_policy_is_caught_by_the_name_it_keeps():
    report = grade_packaged("save_anything_except_these_names", "policy_violation/library_helper.py")
    assert report.verdict == "policy_violation" and "the value named 'big'" in report.message


def test_a_policy_off_by_one_fails_exactly_at_the_boundary():
    report = grade_packaged("write_a_policy", "policy_violation/strict_boundary.py")
    assert report.verdict == "policy_violation"
    failing = [c.name for c in report.cases if c.verdict == "policy_violation"]
    assert "sample-all-small" in failing and "all-large" not in failing


def test_the_memory_budget_reports_peak_and_flops():
    report = grade_packaged("memory_budget_mlp", "accepted/four_then_two.py")
    assert report.verdict == "accepted"
    assert 0 < report.cost.peak_bytes <= 700000 and 0 < report.cost.flops <= 32500000
    too_big = grade_packaged("memory_budget_mlp", "policy_violation/seven_at_once.py")
    assert too_big.verdict == "policy_violation" and "peaks at" in too_big.message


def test_catalog_lists_the_bank():
    result = subprocess.run(
        [sys.executable, "-m", "judge", "catalog", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    by_slug = {p["slug"]: p for p in data["problems"]}
    assert set(by_slug) == set(IDS)
    assert by_slug["checkpoint_dot_policy"]["submissions"]["policy_violation"] >= 5
    assert all(p["submissions"].get("accepted", 0) >= 2 for p in data["problems"])
    text = subprocess.run([sys.executable, "-m", "judge", "catalog"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "difficulty" in text and f"{len(IDS)} problems" in text


def test_scans_of_scans_are_judged_by_their_peak_and_their_nesting():
    accepted = grade_packaged("scan_of_scans", "accepted/no_cse_barriers.py")
    assert accepted.verdict == "accepted" and 0 < accepted.cost.peak_bytes <= 84000
    flat = grade_packaged("scan_of_scans", "policy_violation/flat_checkpointed_step.py")
    assert flat.verdict == "policy_violation"
    assert "None of your checkpoints is inside another" in flat.message and "peaks at" in flat.message
    lopsided = grade_packaged("scan_of_scans", "policy_violation/two_big_blocks.py")
    assert lopsided.verdict == "policy_violation" and lopsided.message.startswith(
        "case sample-64-steps: Your gradient step peaks at 150184 bytes alive at once, 66184 over the 84000 allowed, "
        "because your outer scan cuts the steps into 2 blocks (line 15, "
    )
    # the figure and its cause in one sentence, told once
    assert lopsided.message.count("peaks at") == 1 and lopsided.message.index(lopsided.cause) == len(
        "case sample-64-steps: "
    )


@pytest.mark.parametrize(
    "relative, line", [("runtime_error/no_compile_time_eval.py", 11), ("runtime_error/comparison_outside.py", 12)]
)
def test_a_branch_on_a_recorded_value_is_told_where(relative, line):
    report = grade_packaged("compile_time_eval", relative)
    assert report.verdict == "runtime_error"
    assert "TracerBoolConversionError" in report.message and report.message.endswith(f"(line {line})")


def test_a_numpy_table_is_listed_as_a_kept_constant_and_refused_for_what_the_checkpoint_lacks():
    report = grade_packaged("recompute_constants", "policy_violation/numpy_table.py")
    assert report.verdict == "policy_violation" and report.cause.startswith(
        "Your table is built with NumPy at line 8 (`i = np.arange(x.shape[0])`)"
    )
    assert "jnp.arange" in report.advice and "move the whole computation" not in report.message
    assert any(r.kind == "constant" and r.shape == [6, 6] for r in report.residuals)
    # the advice, followed: the same table from jax.numpy, inside the same checkpoint
    problem = load_problem(ROOT / "problems" / "recompute_constants")
    numpy_table = (problem.path / "submissions" / "policy_violation" / "numpy_table.py").read_text()
    followed = (
        numpy_table.replace("np.arange", "jnp.arange")
        .replace("np.where", "jnp.where")
        .replace("np.float32", "jnp.float32")
    )
    assert grade(problem, followed).verdict == "accepted"
    outside = grade_packaged("recompute_constants", "policy_violation/table_outside.py")
    assert outside.verdict == "policy_violation"
    assert any(r.offending and r.shape == [6, 6] for r in outside.residuals)  # the (T, T) table


def test_jax_checkpoint_on_an_equinox_module_is_a_runtime_error_naming_the_function_leaf():
    report = grade_packaged("equinox_filter_checkpoint", "runtime_error/plain_jax_checkpoint.py")
    assert report.verdict == "runtime_error" and "<class 'function'>" in report.message


def test_forgetting_a_name_in_the_attention_policy_is_named():
    report = grade_packaged("attention_keep_qkv", "policy_violation/forgot_v.py")
    assert report.verdict == "policy_violation" and "the value named 'v'" in report.message


def _packaged_function(path: Path, entry: str):
    namespace = {"__name__": "packaged"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - the bank's own files
    return namespace[entry]


LINEARIZE = load_problem(ROOT / "problems" / "linearize_keeps")
LINEARIZE_FILES = [LINEARIZE.path / "reference.py"] + [
    p for verdict in ("accepted", "policy_violation") for p in LINEARIZE.submissions[verdict]
]


@pytest.mark.parametrize("path", LINEARIZE_FILES, ids=[p.stem for p in LINEARIZE_FILES])
def test_what_linearize_keeps_is_what_the_judge_reads(path):
    """linearize_keeps is judged on what jax.vjp keeps; its statement says that is what
    jax.linearize keeps. Checked on every packaged solution, right and wrong."""
    import jax
    import numpy as np

    from judge.data.specs import generate

    case = LINEARIZE.samples[0]
    rng = np.random.default_rng(case.seed)
    args = [generate(a.spec, a.spec.shape(case.dims), a.init, a.scale, rng) for a in LINEARIZE.args]
    fn = _packaged_function(path, LINEARIZE.entry)
    _, linear = jax.linearize(fn, *args)
    _, backward = jax.vjp(fn, *args)
    kept = lambda f: sorted((tuple(x.shape), str(x.dtype)) for x in jax.tree_util.tree_leaves(f))  # noqa: E731
    assert kept(linear) == kept(backward)


@pytest.mark.parametrize("relative", ["policy_violation/pairs_of_blocks.py", "policy_violation/whole_network.py"])
def test_a_step_over_both_budgets_is_told_first_what_it_holds_and_to_hold_less(relative):
    """Segments too large hold too much and recompute a little more too: "recompute less: larger
    segments" would send the learner the wrong way."""
    report = grade_packaged("memory_budget_transformer", relative)
    assert report.verdict == "policy_violation"
    peak, limit = report.cost.peak_bytes, report.peak_limit_bytes
    assert report.cause.startswith(
        f"Your gradient step peaks at {peak} bytes alive at once, {peak - limit} over the {limit} allowed, because "
        "your jax.checkpoint"
    )
    assert "smaller segments" in report.advice and "larger" not in report.message + report.advice


def test_two_levels_of_recomputation_are_told_to_keep_one():
    source = (
        (
            ROOT
            / "tests"
            / "integrity"
            / "cases"
            / "memory_budget_transformer"
            / "policy_violation"
            / "ragged_dot_two_levels.py"
        )
        .read_text()
        .replace("_mm(", "jnp.matmul(")
        .replace("def jnp.matmul(a, w):", "def _unused(a, w):")
    )
    problem = load_problem(ROOT / "problems" / "memory_budget_transformer")
    report = grade(problem, source)
    assert report.verdict == "policy_violation", report.message
    assert "sits inside another one, so the backward pass recomputes its part twice" in report.cause
    # the outer checkpoint is a decorator: its line is the decorator's, not the loop's call of _block
    assert report.advice.startswith("Try: keep one level of checkpoints: remove the outer jax.checkpoint (line 29)")
    assert source.splitlines()[28] == "@jax.checkpoint" and source.splitlines()[29].startswith("def _block(")
    followed = grade(problem, source.replace("@jax.checkpoint\ndef _block", "def _block"))
    assert followed.verdict == "accepted", followed.message


def test_a_checkpoint_in_a_python_loop_is_told_to_use_scan_and_scan_is_accepted():
    report = grade_packaged("scan_over_layers", "policy_violation/python_loop.py")
    assert report.verdict == "policy_violation"
    assert report.cause.startswith(
        "Your jax.checkpoint (line 10) runs in a Python loop (line 9, `for i in range(Ws.shape[0]):`)"
    )
    assert "jax.lax.scan" in report.advice and "move those lines" not in report.message
    followed = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "layer = jax.checkpoint(lambda h, W: jnp.tanh(h @ W), "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)\n\n\n"
        "def scanned_mlp(Ws, x):\n"
        "    h, _ = jax.lax.scan(lambda h, W: (layer(h, W), None), x, Ws)\n"
        "    return jnp.sum(h ** 2)\n"
    )
    problem = load_problem(ROOT / "problems" / "scan_over_layers")
    assert grade(problem, followed).verdict == "accepted"


def test_weights_in_a_scan_carry_are_named_and_a_closure_is_accepted():
    report = grade_packaged("scan_of_scans", "policy_violation/weights_in_carry.py")
    assert report.verdict == "policy_violation"
    assert "your scan's step carries `W` through unchanged (line 12)" in report.cause
    assert report.advice.startswith("Try: take `W` out of the carry") and "smaller segments" not in report.message
    problem = load_problem(ROOT / "problems" / "scan_of_scans")
    source = (problem.path / "submissions" / "policy_violation" / "weights_in_carry.py").read_text()
    followed = (
        source.replace(
            "def step(carry, dt):\n    h, W = carry\n    return (h + dt * jnp.tanh(jnp.dot(h, W)), W), None",
            "def step(h, dt, W):\n    return h + dt * jnp.tanh(jnp.dot(h, W)), None",
        )
        .replace(
            "def block(carry, block_dts):\n    return jax.lax.scan(step, carry, block_dts)[0], None",
            "def block(h, block_dts, W):\n    return jax.lax.scan(lambda h, dt: step(h, dt, W), h, block_dts)[0], None",
        )
        .replace(
            "    (h, _), _ = jax.lax.scan(block, (h0, W), jnp.reshape(dts, (n, n)))",
            "    h, _ = jax.lax.scan(lambda h, b: block(h, b, W), h0, jnp.reshape(dts, (n, n)))",
        )
    )
    assert followed.count("W)") >= 3 and "(h0, W)" not in followed
    assert grade(problem, followed).verdict == "accepted", grade(problem, followed).message
