"""The policy explorer (``judge.explorer.explore``): every plan of a learner's function, measured by the
verifier as a verdict is, the frontier of memory against work, and the plan that fits a budget."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import jax
import numpy as np
import pytest

from judge import grade, load_problem
from judge.bench_explorer import MLP, MLP_SHAPES, TRANSFORMER, transformer_shapes
from judge.cli import main
from judge.explorer import loops as explore_loops
from judge.explorer import rewrite_check as explore_rewrite_check
from judge.explorer.explore import HARNESS, ExploreError, cheapest_within, explore, render, scanned_block
from judge.grading.grader import default_runner

ROOT = Path(__file__).resolve().parents[2]

SHAPES = MLP_SHAPES
# XLA's compilation of each plan (the rows' compiled_* figures) is most of an exploration's work
# (the six-block loop below: 26 CPU-seconds with it, 6 without), and only the tests of those figures read it (``explored``, the 16 GiB MLP): the others
# measure the walk's figures, the ones a verdict rests on, with ``compile_s=0``.
INPUT_BYTES = (128 * 256 + 256 * 128 + 64 * 128) * 4


@pytest.fixture(scope="module")
def explored():
    """Every plan of a 2-layer MLP; how long it takes is ``python -m judge bench --explorer``'s business."""
    return explore(MLP, "mlp", SHAPES, default_runner())


def _row(found, plan):
    return next(r for r in found.rows if r.plan == plan)


def test_every_policy_gets_a_row_and_nothing_saveable_trades_memory_for_work(explored):
    found = explored
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
    found = explored
    offloaded, dots = _row(found, "offload_dot_with_no_batch_dims"), _row(found, "dots_with_no_batch_dims_saveable")
    assert offloaded.host_bytes > 0 and offloaded.held_bytes + offloaded.host_bytes == dots.held_bytes
    assert offloaded.flops == dots.flops


def test_the_frontier_greys_what_another_plan_beats(explored):
    found = explored
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
    found = explored
    dots = _row(found, "dots_saveable")
    assert cheapest_within(found.rows, 10**9).plan == "as written"  # room for everything: no recomputation
    best = cheapest_within(found.rows, dots.held_bytes)
    assert best.flops == dots.flops and best.host_bytes == 0 and best.held_bytes <= dots.held_bytes
    assert "jax.checkpoint(mlp, policy=jax.checkpoint_policies.dots" in best.code
    # below the dots but above the inputs: offloading the dots beats recomputing them
    assert cheapest_within(found.rows, INPUT_BYTES).plan == "offload_dot_with_no_batch_dims"
    assert cheapest_within(found.rows, INPUT_BYTES - 1) is None


def test_arguments_larger_than_the_machine_are_planned_from_their_shapes():
    """Nothing is made from the shapes: an MLP whose weights alone take 16 GiB (twice as much as
    the sandbox may use) gets every plan, with its bytes, peak and FLOPs, and XLA's peak of each
    plan's step compiled alone."""
    wide = ["f32[8192,262144]", "f32[262144,8192]", "f32[64,8192]"]
    found = explore(MLP, "mlp", wide, default_runner())
    weights = 2 * 8192 * 262144 * 4
    nothing = _row(found, "nothing_saveable")
    assert found.failed == [] and len(found.rows) == 9
    assert nothing.held_bytes == weights + 64 * 8192 * 4  # the inputs, kept at their real size
    assert nothing.flops > 4 * 64 * 8192 * 262144  # the products' work, done again
    assert all(r.compiled_peak_bytes >= 2 * weights for r in found.rows)  # the weights and their gradients


def test_the_estimates_are_compared_with_the_compiled_peak(explored):
    """The walk's peak (the figure a verdict records) and XLA's peak of the same step compiled on
    this machine's CPU: both count the inputs and their gradients, and they stay within a factor
    of two of each other on a small function."""
    for row in explored.rows:
        assert row.compiled_peak_bytes is not None and row.compiled_flops is not None
        assert row.compiled_peak_bytes >= 2 * INPUT_BYTES and row.peak_bytes >= 2 * INPUT_BYTES
        assert 0.5 <= row.peak_bytes / row.compiled_peak_bytes <= 2.0, row
        assert 0.8 <= row.flops / row.compiled_flops <= 1.25, row  # no loop: XLA counts it all


def test_a_hostile_source_is_refused_by_the_gate_before_any_process():
    hostile = "import os\n\ndef f(x):\n    os.system('id')\n    return x.sum()\n"
    with pytest.raises(ExploreError, match="not allowed"):
        explore(hostile, "f", ["f32[4]"], default_runner())


@pytest.mark.parametrize(
    "specs, phrase",
    [
        (["f32[n,4]"], "concrete sizes"),
        (["i32[4]"], "floating point"),
        (["f32[2097152,1048576]"], "at most"),
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
    found = explore(
        problem.reference, "_pipeline", ["f32[16,16]", "f32[16,16]", "f32[8,16]"], default_runner(), compile_s=0
    )
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
    assert "nothing_saveable" in out
    assert "the cheapest plan within 1000000000 bytes (bytes kept on the device between the passes): as written" in out
    assert main(["explore", str(path), "--args", *SHAPES, "--budget", "1", "--budget-on", "peak"]) == 0
    assert "no plan fits 1 bytes (the step's peak bytes)" in capsys.readouterr().out
    assert main(["explore", f"{path}:mlp", "--args", "f32[n]"]) == 1
    assert "concrete sizes" in capsys.readouterr().err


# ---------------------------------------------------------------------------- placements in a scan

STACK = TRANSFORMER
PLACEMENTS = [
    "checkpoint every block",
    "checkpoint every 2 blocks",
    "checkpoint every 3 blocks",
    "checkpoint every 4 blocks",
    "nested: sqrt(N) segments, every block in them",
]


_stack = transformer_shapes


@pytest.fixture(scope="module")
def stacked():
    return explore(STACK, "transformer", _stack(12, 32, 128, 64), default_runner(), compile_s=0)


def test_a_scan_over_blocks_gets_a_row_per_placement(stacked):
    found = stacked
    assert [r.plan for r in found.rows if r.kind == "blocks"] == PLACEMENTS and found.failed == []
    written, whole = _row(found, "as written"), _row(found, "nothing_saveable")
    every, nested = _row(found, PLACEMENTS[0]), _row(found, PLACEMENTS[-1])
    # one block rebuilt at a time: far below the plain step's peak and the whole function's
    assert every.peak_bytes < written.peak_bytes / 2 and every.peak_bytes < whole.peak_bytes / 2
    # it keeps each block's input (64 x 32 float32) besides the weights, which whole keeps alone
    assert every.held_bytes - whole.held_bytes == 12 * 64 * 32 * 4
    # segments keep fewer block inputs, and rebuild more at once
    segments = [_row(found, p) for p in PLACEMENTS[:4]]
    assert [r.held_bytes for r in segments] == sorted((r.held_bytes for r in segments), reverse=True)
    assert [r.peak_bytes for r in segments] == sorted(r.peak_bytes for r in segments)
    # nested: every block runs a third time, so more work than one checkpoint per block
    assert nested.flops > every.flops > written.flops
    assert not every.dominated and not whole.dominated  # one wins on the peak, the other on what it holds


def test_the_budget_on_the_peak_names_a_placement_and_its_code(stacked):
    every = _row(stacked, "checkpoint every block")
    best = cheapest_within(stacked.rows, every.peak_bytes, on="peak")
    assert best.plan == "checkpoint every block"
    assert "jax.lax.scan(jax.checkpoint(block), h, layers)" in best.code
    # on what is held between the passes, the whole function's checkpoint holds least
    assert cheapest_within(stacked.rows, every.held_bytes - 1).kind != "blocks"


def test_a_function_without_a_scan_gets_no_placement(explored):
    found = explored
    assert not any(r.kind == "blocks" for r in found.rows) and scanned_block(MLP) is None


@pytest.mark.parametrize(
    "call, block",
    [
        ("jax.lax.scan(step, x, ws)", "step"),
        ("lax.scan(f=step, init=x, xs=ws)", None),  # keywords only: the first argument is not there
        ("scan(partial(step, 2), x, ws)", "partial(step, 2)"),
    ],
)
def test_the_block_is_what_the_first_scan_runs(call, block):
    source = f"import jax\nfrom jax import lax\nfrom jax.lax import scan\n\ndef f(x, ws):\n    return {call}\n"
    assert scanned_block(source) == block


LOOP = """import jax
import jax.numpy as jnp


def step(h, w):
    return jnp.tanh(h @ w) + h, jnp.sum(h)


def loss(ws, x):
    h, sums = jax.lax.scan(step, x, ws, reverse=REVERSE)
    inner, _ = jax.lax.scan(lambda c, w: (c * 0.5 + jnp.tanh(c @ w), None), h, ws[:2])
    return jnp.mean(inner ** 2) + jnp.sum(sums * jnp.arange(sums.shape[0]))
"""


@pytest.mark.parametrize("reverse", [False, True])
def test_every_placement_computes_the_function_as_written(reverse):
    """The harness's placements change where values are computed, never what: 7 blocks split
    into segments of 2, 3 and 4 leave a shorter last one, the scan's outputs keep their order (in
    a reverse scan too), and a second scan is placed alike (the first alone is named)."""
    harness, learner = {}, {}
    exec(HARNESS, harness)  # noqa: S102 - the judge's own code
    exec(LOOP.replace("REVERSE", str(reverse)), learner)  # noqa: S102 - a test's function
    rng = np.random.default_rng(0)
    ws = rng.standard_normal((7, 16, 16)).astype(np.float32) * 0.3
    x = rng.standard_normal((4, 16)).astype(np.float32)

    def gradient(plan):
        step = jax.value_and_grad(lambda w, h: harness["run"](learner["loss"], plan, w, h), argnums=(0, 1))
        return jax.jit(step)(ws, x)  # one compilation, not an operation at a time

    value, grads = gradient("as written:")
    for placement in ("every", "2", "3", "4", "nested"):
        placed_value, placed_grads = gradient(f"blocks:{placement}")
        np.testing.assert_allclose(placed_value, value, rtol=1e-5)
        for mine, theirs in zip(placed_grads, grads):
            np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-6)
        assert jax.lax.scan is harness["_scan"]  # put back after the plan
        jaxpr = str(
            jax.make_jaxpr(lambda w, h, p=placement: harness["run"](learner["loss"], f"blocks:{p}", w, h))(ws, x)
        )
        assert "checkpoint" in jaxpr or "remat" in jaxpr


def test_a_twelve_block_transformer_step_gets_every_plan_through_the_pipe():
    """Twelve blocks of width 128 (2.4 Mi elements: nine times what the explorer took when every
    plan carried its own inputs), every policy and placement measured. Its time is the bench's
    (``python -m judge bench --explorer``: target 20 s)."""
    found = explore(STACK, "transformer", _stack(12, 128, 512, 128), default_runner(), compile_s=0)
    # as written, 5 policies, 5 placements, and every block and sqrt(N) segments with each dots policy
    assert len(found.rows) == 15 and found.failed == []


def test_the_bank_problem_of_the_explorer_has_its_reference_on_the_plan_within_its_budget():
    """fit_the_budget is solved by reading the explorer: on the starter, with the problem's shapes,
    its weights differentiated and its peak budget, the plan named is the reference's placement,
    with the figures its grading records (and so its leaderboard shows)."""
    problem = load_problem(ROOT / "problems" / "fit_the_budget")
    graded = grade(problem, problem.reference, samples_only=True, measure_cost=True)
    shapes = ["f32[12,32,128]", "f32[12,128,32]", "f32[64,32]", "f32[64,32]"]
    found = explore(
        problem.starter,
        "train_loss",
        shapes,
        default_runner(),
        budget=problem.cost_rules.max_peak_bytes,
        budget_on="peak",
        wrt=list(problem.wrt),
        compile_s=0,
    )
    assert found.best.plan == "checkpoint every block" and found.best.flops <= problem.cost_rules.max_flops
    assert (found.best.held_bytes, found.best.peak_bytes, found.best.flops, found.best.held_peak_bytes) == (
        graded.residual_bytes,
        graded.cost.peak_bytes,
        graded.cost.flops,
        graded.cost.held_peak_bytes,
    )
    # the other placements within the peak budget are over its FLOPs budget: the learner's choice is real
    fits = [r for r in found.rows if r.peak_bytes <= problem.cost_rules.max_peak_bytes]
    assert {r.plan for r in fits} >= {"checkpoint every 2 blocks", "nested: sqrt(N) segments, every block in them"}
    assert [r.plan for r in fits if r.flops <= problem.cost_rules.max_flops] == ["checkpoint every block"]
    with pytest.raises(ExploreError, match="differentiate some of the arguments W_in, W_out, x, y, not w"):
        explore(problem.starter, "train_loss", shapes, default_runner(), wrt=["w"])


def test_a_jitted_function_is_placed_like_the_function_it_wraps():
    """jax.jit keeps the trace of its first call (the plan as written): the harness places
    checkpoints in the function it wraps, so the rows are those of the same function unjitted."""
    plain = STACK.replace("def transformer(", "def plain(")
    jitted = STACK.replace("def transformer(", "@jax.jit\ndef transformer(")
    shapes = _stack(4, 16, 32, 16)
    found = {
        name: {r.plan: r for r in explore(source, name, shapes, default_runner(), compile_s=0).rows}
        for source, name in ((plain, "plain"), (jitted, "transformer"))
    }
    for plan in PLACEMENTS:
        mine, theirs = found["transformer"][plan], found["plain"][plan]
        assert (mine.held_bytes, mine.peak_bytes, mine.flops) == (theirs.held_bytes, theirs.peak_bytes, theirs.flops)
    assert found["transformer"][PLACEMENTS[0]].peak_bytes < found["transformer"]["as written"].peak_bytes


# ---------------------------------------------------------------------------- placements in a Python loop

LOOPED = TRANSFORMER.replace(
    "    h, _ = jax.lax.scan(block, x, (wq, wk, wv, wo, w1, w2))\n",
    "    h = x\n    for layer in zip(wq, wk, wv, wo, w1, w2):\n        h, _ = block(h, layer)\n",
)


@pytest.fixture(scope="module")
def looped():
    return explore(LOOPED, "transformer", _stack(6, 32, 128, 64), default_runner(), compile_s=0)


def test_a_python_loop_over_blocks_gets_the_placements_a_scan_gets(looped):
    """Most models loop over their layers in Python: the explorer places checkpoints in that loop
    too, and what each placement costs moves the way it does in a scan."""
    found = looped
    assert [r.plan for r in found.rows if r.kind == "blocks"] == PLACEMENTS and found.failed == []
    written, whole, every = _row(found, "as written"), _row(found, "nothing_saveable"), _row(found, PLACEMENTS[0])
    assert every.peak_bytes < written.peak_bytes / 2 and every.peak_bytes < whole.peak_bytes
    assert every.held_bytes - whole.held_bytes == 6 * 64 * 32 * 4  # each block's input kept
    segments = [_row(found, p) for p in PLACEMENTS[:4]]
    assert [r.held_bytes for r in segments] == sorted((r.held_bytes for r in segments), reverse=True)
    assert _row(found, PLACEMENTS[-1]).flops > every.flops > written.flops
    # the code shown is the learner's loop, with their own names, checkpointed
    assert every.code.splitlines()[-2:] == [
        "for layer in zip(wq, wk, wv, wo, w1, w2):",
        "    h = jax.checkpoint(partial(turn, layer))(h)",
    ]


def test_the_loop_as_written_is_measured_when_its_rewrite_computes_other_values(looped, monkeypatch):
    """The static reading of a loop is a model: before any placement is reported, the rewritten loop
    is run beside the loop as written on the same inputs, and a rewrite that computes other values
    (here one made wrong on purpose: its turn skips the block) is dropped, saying why."""
    real = explore_loops.find

    def wrong(source, function):
        loop = real(source, function)
        broken = loop.rewritten.replace("h, _ = block(h, layer)", "h = h * 1.0")
        assert broken != loop.rewritten
        return dataclasses.replace(loop, rewritten=broken)

    monkeypatch.setattr(explore_loops, "find", wrong)
    found = explore(LOOPED, "transformer", _stack(6, 32, 128, 64), default_runner(), compile_s=0)
    assert not [r for r in found.rows if r.kind == "blocks"]  # no placement of a loop it could not keep
    assert _row(found, "as written").peak_bytes == _row(looped, "as written").peak_bytes
    [note] = found.notes
    assert note.startswith("Your loop at line ") and note.endswith("it computed other values (the output differs).")
    assert note in render(found) and found.to_dict()["notes"] == [note]
    assert looped.notes == []  # the honest rewrite computes the same values: placements are offered


def test_a_loop_too_large_to_run_is_checked_on_small_arguments_of_its_structure(monkeypatch):
    """The rewrite's check is the one step that runs the program: at sizes too large to run it
    runs on smaller ones of the same structure (the number of blocks kept, widths divided alike),
    and a wrong rewrite is still caught there."""
    seen = []
    real = explore_rewrite_check.pipeline.run

    def run(problem, source, cases, runner, **kw):
        seen.append([a.spec.shape({}) for a in problem.args if not a.static])
        return real(problem, source, cases, runner, **kw)

    monkeypatch.setattr(explore_rewrite_check.pipeline, "run", run)
    large = _stack(4, 2048, 8192, 1024)  # 194 Mi numbers
    found = explore(LOOPED, "transformer", large, default_runner(), compile_s=0)
    assert [r.plan for r in found.rows if r.kind == "blocks"] == PLACEMENTS and found.notes == []
    assert seen and seen[0][0] == (4, 32, 32) and seen[0][-1] == (16, 32)  # 4 blocks, width 2048 / 64

    real_find = explore_loops.find
    monkeypatch.setattr(
        explore_loops,
        "find",
        lambda source, function: dataclasses.replace(
            real_find(source, function),
            rewritten=real_find(source, function).rewritten.replace("h, _ = block(h, layer)", "h = h * 1.0"),
        ),
    )
    found = explore(LOOPED, "transformer", large, default_runner(), compile_s=0)
    assert not [r for r in found.rows if r.kind == "blocks"] and "differs" in found.notes[0]


@pytest.mark.parametrize("placement", ["every", "2", "3", "nested"])
def test_a_placed_loop_computes_the_loop_as_written(placement):
    """The rewrite and the harness change where values are computed, never what: a loop over an
    index (a Python int each turn, so it stays one), carrying two values, 7 turns in segments that
    leave a shorter last one."""
    source = """import jax
import jax.numpy as jnp


def loss(ws, x):
    h, total = x, 0.0
    for i in range(ws.shape[0]):
        h = jnp.tanh(h @ ws[i]) + h
        total = total + jnp.sum(h) * (i + 1)
    return jnp.mean(h ** 2) + total
"""
    loop = explore_loops.find(source, "loss")
    assert (loop.targets, loop.carried, loop.items) == (("i",), ("h", "total"), "range(ws.shape[0])")
    harness, learner, plain = {}, {}, {}
    exec(HARNESS, harness)  # noqa: S102 - the judge's own code
    exec(loop.rewritten, learner)  # noqa: S102 - a test's function, rewritten
    exec(source, plain)  # noqa: S102 - the same, as written
    rng = np.random.default_rng(0)
    ws = rng.standard_normal((7, 16, 16)).astype(np.float32) * 0.3
    x = rng.standard_normal((4, 16)).astype(np.float32)
    value, grads = jax.jit(jax.value_and_grad(plain["loss"], argnums=(0, 1)))(ws, x)
    placed = jax.value_and_grad(lambda w, h: harness["run"](learner["loss"], f"blocks:{placement}", w, h), (0, 1))
    placed_value, placed_grads = jax.jit(placed)(ws, x)
    np.testing.assert_allclose(placed_value, value, rtol=1e-5)
    for mine, theirs in zip(placed_grads, grads):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-6)
    jaxpr = str(jax.make_jaxpr(lambda w, h, p=placement: harness["run"](learner["loss"], f"blocks:{p}", w, h))(ws, x))
    written = str(jax.make_jaxpr(lambda w, h: harness["run"](learner["loss"], "as written:", w, h))(ws, x))
    assert ("checkpoint" in jaxpr or "remat" in jaxpr) and "checkpoint" not in written and "remat" not in written


@pytest.mark.parametrize(
    "loop",
    [
        "for w in ws:\n        h = f(h, w)\n        if h is None:\n            break",  # leaves early
        "for w in ws:\n        h = f(h, w)\n    else:\n        h = -h",  # an else after it
        "for w in ws:\n        last = f(h, w)",  # nothing carried from turn to turn
        "for w in ws:\n        y = f(h, w)\n        h = y\n    h = h + y",  # a name of the turn read after
        "for w in ws:\n        h = f(h, w)\n    h = h + w",  # the loop's own name read after
        "for w in ws: h = f(h, w)",  # the turn on the header's line
        "for w, (a, b) in ws:\n        h = f(h, w)",  # a nested target
        "for w in ws:\n        h = arena_chain(h, w)",  # the learner's own name of the rewrite's
        # a closure defined before the loop reads a name the turn assigns (it would read the first
        # turn's value, or the one before the loop, once the turn is a function of its own)
        "last = ws[0]\n    tail = lambda: last\n    for w in ws:\n        last = w\n        h = f(h, w)\n    h = f(h, tail())",
        "def step(w):\n        return f(h, w)\n    for w in ws:\n        h = step(w)",
    ],
)
def test_a_loop_the_rewrite_could_change_is_left_as_written(loop):
    source = f"def f(h, w):\n    return h @ w\n\n\ndef loss(ws, h):\n    {loop}\n    return h\n"
    compile(source, "submission.py", "exec")  # valid Python, only not rewritable
    assert explore_loops.find(source, "loss") is None
