"""The policy explorer (``judge.explore``): every plan of a learner's function, measured by the
verifier as a verdict is, the frontier of memory against work, and the plan that fits a budget."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.cli import main
from judge.explore import ExploreError, cheapest_within, explore
from judge.grader import default_runner

ROOT = Path(__file__).resolve().parents[2]

MLP = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def mlp(w1, w2, x):
    hidden = checkpoint_name(jnp.tanh(x @ w1), "hidden")
    return jnp.sum(jnp.tanh(hidden @ w2) ** 2)
"""
SHAPES = ["f32[128,256]", "f32[256,128]", "f32[64,128]"]
INPUT_BYTES = (128 * 256 + 256 * 128 + 64 * 128) * 4


@pytest.fixture(scope="module")
def explored():
    runner = default_runner()
    explore(MLP, "mlp", SHAPES, runner)  # the zygote's start and first compilation: not the explorer's time
    times = []
    for _ in range(2):  # the better of two: the machine is shared, and a neighbour's burst is not ours
        started = time.monotonic()
        found = explore(MLP, "mlp", SHAPES, runner)
        times.append(time.monotonic() - started)
    return found, min(times)


def _row(found, plan):
    return next(r for r in found.rows if r.plan == plan)


def test_every_policy_gets_a_row_and_nothing_saveable_trades_memory_for_work(explored):
    found, _ = explored
    plans = [r.plan for r in found.rows]
    assert plans[:5] == [
        "as written",
        "everything_saveable",
        "nothing_saveable",
        "dots_saveable",
        "dots_with_no_batch_dims_saveable",
    ]
    assert "save_only_these_names('hidden')" in plans and "save_any_names_but_these('hidden')" in plans
    assert found.names == ["hidden"] and found.failed == []
    nothing, everything = _row(found, "nothing_saveable"), _row(found, "everything_saveable")
    assert nothing.held_bytes < everything.held_bytes and nothing.flops > everything.flops
    assert nothing.held_bytes == INPUT_BYTES  # it keeps the inputs alone
    # the two matrix products done again: 2 * 64 * 128 * 256 FLOPs each
    assert nothing.recomputed_flops >= 2 * (2 * 64 * 128 * 256)
    assert everything.recomputed_flops == 0 and nothing.peak_bytes < everything.peak_bytes


def test_offloading_moves_residuals_to_the_host(explored):
    found, _ = explored
    offloaded, dots = _row(found, "offload_dot_with_no_batch_dims"), _row(found, "dots_with_no_batch_dims_saveable")
    assert offloaded.host_bytes > 0 and offloaded.held_bytes + offloaded.host_bytes == dots.held_bytes
    assert offloaded.flops == dots.flops


def test_the_frontier_greys_what_another_plan_beats(explored):
    found, _ = explored
    # saving the named value costs as much work as saving nothing, and holds more
    assert _row(found, "save_only_these_names('hidden')").dominated
    assert not _row(found, "nothing_saveable").dominated and not _row(found, "everything_saveable").dominated
    for row in found.rows:
        if not row.dominated:
            assert not any(
                o.held_bytes <= row.held_bytes
                and o.host_bytes <= row.host_bytes
                and o.flops <= row.flops
                and (o.held_bytes, o.host_bytes, o.flops) != (row.held_bytes, row.host_bytes, row.flops)
                for o in found.rows
            )


def test_the_budget_names_the_least_recomputation_that_fits(explored):
    found, _ = explored
    dots = _row(found, "dots_saveable")
    assert cheapest_within(found.rows, 10**9).plan == "as written"  # room for everything: no recomputation
    best = cheapest_within(found.rows, dots.held_bytes)
    assert best.flops == dots.flops and best.host_bytes == 0 and best.held_bytes <= dots.held_bytes
    assert "jax.checkpoint(mlp, policy=jax.checkpoint_policies.dots" in best.code
    # below the dots but above the inputs: offloading the dots beats recomputing them
    assert cheapest_within(found.rows, INPUT_BYTES).plan == "offload_dot_with_no_batch_dims"
    assert cheapest_within(found.rows, INPUT_BYTES - 1) is None


def test_every_policy_of_a_two_layer_mlp_in_under_three_seconds(explored):
    _, seconds = explored
    assert seconds < 3.0, f"{seconds:.2f} s"


def test_a_hostile_source_is_refused_by_the_gate_before_any_process():
    hostile = "import os\n\ndef f(x):\n    os.system('id')\n    return x.sum()\n"
    with pytest.raises(ExploreError, match="not allowed"):
        explore(hostile, "f", ["f32[4]"], default_runner())


@pytest.mark.parametrize(
    "specs, phrase",
    [
        (["f32[n,4]"], "concrete sizes"),
        (["i32[4]"], "floating point"),
        (["f32[1024,1024]"], "at most"),
        ([], "shape of each argument"),
        (["float[4"], r"'float\[4'"),
    ],
)
def test_bad_shapes_get_a_clear_error(specs, phrase):
    with pytest.raises(ExploreError, match=phrase):
        explore(MLP, "mlp", specs, default_runner())


def test_a_function_that_fails_says_why():
    with pytest.raises(ExploreError, match=r"same shape.*\(line 7\)"):
        explore(MLP, "mlp", ["f32[3,5]", "f32[256,128]", "f32[64,128]"], default_runner())


def test_a_bank_problems_reference_policy_has_the_figures_its_verdict_records():
    """The explorer and the leaderboard never disagree: the reference of checkpoint_dot_policy
    wraps its pipeline in dots_with_no_batch_dims_saveable; exploring the bare pipeline on the
    first sample's shapes (N=8, d=16) gives that row the figures of the reference's grading."""
    problem = load_problem(ROOT / "problems" / "checkpoint_dot_policy")
    graded = grade(problem, problem.reference, samples_only=True, measure_cost=True)
    found = explore(problem.reference, "_pipeline", ["f32[16,16]", "f32[16,16]", "f32[8,16]"], default_runner())
    row = _row(found, "dots_with_no_batch_dims_saveable")
    assert (row.held_bytes, row.peak_bytes, row.flops) == (
        graded.residual_bytes,
        graded.cost.peak_bytes,
        graded.cost.flops,
    )
    assert row.held_peak_bytes == graded.cost.held_peak_bytes


def test_the_command_line_prints_the_table_and_the_plan(tmp_path, capsys):
    path = tmp_path / "mlp.py"
    path.write_text(MLP)
    assert main(["explore", str(path), "--args", *SHAPES, "--budget", str(10**9)]) == 0
    out = capsys.readouterr().out
    assert "nothing_saveable" in out and "the cheapest plan within 1000000000 bytes: as written" in out
    assert main(["explore", f"{path}:mlp", "--args", "f32[n]"]) == 1
    assert "concrete sizes" in capsys.readouterr().err
