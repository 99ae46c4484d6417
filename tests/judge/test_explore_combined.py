"""The explorer's placements with a policy inside each checkpoint, and its policy per layer kind
(``judge.explorer.plans``): each measured as a verdict is, each computing what the function
as written computes, and each plan's code, written into the learner's function, measured alike."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from judge.bench_explorer import transformer_shapes
from judge.explorer import explore as explore_module
from judge.explorer import loops as explore_loops
from judge.explorer.explore import HARNESS, Plan, explore
from judge.explorer.layer_kinds import layer_kinds
from judge.explorer.plans import AS_WRITTEN, plans
from judge.grading.grader import default_runner

# A block of attention and an MLP, its values labelled as a practitioner labels them: q, k and v
# (the attention's) and up (the MLP's)
NAMED = """import math
from functools import partial

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def block(h, layer):
    wq, wk, wv, wo, w1, w2 = layer
    q = checkpoint_name(h @ wq, "q")
    k = checkpoint_name(h @ wk, "k")
    v = checkpoint_name(h @ wv, "v")
    h = h + (jax.nn.softmax(q @ k.T / math.sqrt(h.shape[-1]), axis=-1) @ v) @ wo
    up = checkpoint_name(h @ w1, "up")
    return h + jax.nn.gelu(up) @ w2, None


def transformer(wq, wk, wv, wo, w1, w2, x):
    h, _ = jax.lax.scan(block, x, (wq, wk, wv, wo, w1, w2))
    return jnp.mean(h ** 2)
"""
SCAN_LINE = "    h, _ = jax.lax.scan(block, x, (wq, wk, wv, wo, w1, w2))\n"
LOOPED = NAMED.replace(
    SCAN_LINE, "    h = x\n    for layer in zip(wq, wk, wv, wo, w1, w2):\n        h, _ = block(h, layer)\n"
)
SHAPES = transformer_shapes(4, 32, 128, 64)  # four blocks: sqrt(N) segments of two
ATTENTION_KEPT = "save_only_these_names('q', 'k', 'v'): attention kept, MLP recomputed"
MLP_KEPT = "save_only_these_names('up'): MLP kept, attention recomputed"
PLACED = [
    "checkpoint every block with dots_saveable",
    "checkpoint every block with dots_with_no_batch_dims_saveable",
    "checkpoint every block with save_only_these_names('q', 'k', 'v', 'up')",
    "checkpoint sqrt(N) segments with dots_saveable",
    "checkpoint sqrt(N) segments with dots_with_no_batch_dims_saveable",
    "checkpoint sqrt(N) segments with save_only_these_names('q', 'k', 'v', 'up')",
    f"checkpoint every block with {ATTENTION_KEPT}",
    f"checkpoint every block with {MLP_KEPT}",
]


def _explore(source):
    # the offloading plans and XLA's compilation of each plan are other tests' business
    return explore(source, "transformer", SHAPES, default_runner(), offload=False, compile_s=0)


@pytest.fixture(scope="module")
def named():
    return _explore(NAMED)


@pytest.fixture(scope="module")
def looped():
    return _explore(LOOPED)


def _row(found, plan):
    return next(r for r in found.rows if r.plan == plan)


def test_names_fall_into_attention_and_mlp_by_their_words():
    names = ["q_proj", "attn_out", "qkv", "mlp_up", "ffn_hidden", "w1", "attn_mlp", "logits"]
    assert layer_kinds(names) == (("q_proj", "attn_out", "qkv"), ("mlp_up", "ffn_hidden"))
    # one group alone gets no plan per layer kind; both get one each way
    assert not any(p.group for p in plans(["q", "k"], blocks=True))
    assert [p.label for p in plans(["qkv", "up"]) if p.group] == [
        "save_only_these_names('qkv'): attention kept, MLP recomputed",
        "save_only_these_names('up'): MLP kept, attention recomputed",
    ]


def test_a_checkpoint_per_block_with_a_policy_holds_between_the_placement_alone_and_no_checkpoint(named):
    """Saving the products inside each block's checkpoint keeps them as well as the block inputs
    (more than the placement alone, which keeps the inputs only) but far less than the step as
    written, and redoes only what is not a product: close to the work as written."""
    found = named
    assert [r.plan for r in found.rows if r.kind == "blocks+policy"] == PLACED and found.failed == []
    written, every = _row(found, "as written"), _row(found, "checkpoint every block")
    with_dots = _row(found, "checkpoint every block with dots_saveable")
    assert every.held_bytes < with_dots.held_bytes < written.held_bytes
    assert every.peak_bytes < with_dots.peak_bytes < written.peak_bytes
    assert written.flops < with_dots.flops < every.flops
    assert with_dots.recomputed_flops < every.recomputed_flops / 10
    # saving the four names inside each block keeps less than every product, and redoes more
    with_names = _row(found, "checkpoint every block with save_only_these_names('q', 'k', 'v', 'up')")
    assert every.held_bytes < with_names.held_bytes < with_dots.held_bytes
    assert with_dots.flops < with_names.flops < every.flops
    # segments of sqrt(N) blocks keep two block inputs where a checkpoint per block keeps four
    segments = _row(found, "checkpoint sqrt(N) segments with save_only_these_names('q', 'k', 'v', 'up')")
    assert segments.held_bytes < with_names.held_bytes and segments.peak_bytes > with_names.peak_bytes


def test_a_policy_per_layer_kind_keeps_one_kinds_names_and_recomputes_the_other(named):
    found = named
    nothing, everything = _row(found, "nothing_saveable"), _row(found, "everything_saveable")
    attention, mlp = _row(found, ATTENTION_KEPT), _row(found, MLP_KEPT)
    for kept in (attention, mlp):
        assert nothing.held_bytes < kept.held_bytes < everything.held_bytes
        assert everything.flops < kept.flops < nothing.flops
    # q, k and v are three 64 x 32 values per block, up one 64 x 128: the same bytes, other work
    assert attention.held_bytes - nothing.held_bytes == 4 * 3 * 64 * 32 * 4
    assert mlp.held_bytes - nothing.held_bytes == 4 * 64 * 128 * 4
    # the same in each block's checkpoint: between the placement alone and every product saved
    every = _row(found, "checkpoint every block")
    for group in (ATTENTION_KEPT, MLP_KEPT):
        placed = _row(found, f"checkpoint every block with {group}")
        assert (
            every.held_bytes < placed.held_bytes < _row(found, "checkpoint every block with dots_saveable").held_bytes
        )
        assert placed.flops < every.flops


def _measured_as_written(source, monkeypatch):
    monkeypatch.setattr(explore_module, "plans", lambda *args, **kwargs: [Plan(AS_WRITTEN)])
    [row] = _explore(source).rows
    return row.held_bytes, row.peak_bytes, row.flops


def _in_function(code, head):
    return head + "".join(f"    {line}\n" if line else "\n" for line in code.splitlines())


@pytest.mark.parametrize("plan", [PLACED[3], PLACED[6]])
def test_a_placed_plans_code_written_into_the_scan_measures_what_its_row_says(named, plan, monkeypatch):
    """The code a row shows is the change measured: written into the function in place of its
    scan (the carry ``h`` and the stacked ``layers`` named as the code names them), the function
    as written has the row's figures."""
    row = _row(named, plan)
    head = "    h, layers, n_blocks = x, (wq, wk, wv, wo, w1, w2), wq.shape[0]\n"
    source = NAMED.replace(SCAN_LINE, _in_function(row.code, head))
    assert "policy=jax.checkpoint_policies." in row.code
    assert _measured_as_written(source, monkeypatch) == (row.held_bytes, row.peak_bytes, row.flops)


@pytest.mark.parametrize("plan", [PLACED[0], PLACED[5]])
def test_a_placed_plans_code_written_into_the_loop_measures_what_its_row_says(looped, plan, monkeypatch):
    """In a Python loop the code is the learner's loop with its checkpoints and their policy: in
    place of the loop, it has the figures of the row measured through the loop's rewrite."""
    assert [r.plan for r in looped.rows if r.kind == "blocks+policy"] == PLACED and looped.failed == []
    row = _row(looped, plan)
    loop = "    h = x\n    for layer in zip(wq, wk, wv, wo, w1, w2):\n        h, _ = block(h, layer)\n"
    source = LOOPED.replace(loop, _in_function(row.code, "    h = x\n"))
    assert "policy=jax.checkpoint_policies." in row.code and "for layer in" in row.code
    assert _measured_as_written(source, monkeypatch) == (row.held_bytes, row.peak_bytes, row.flops)


LOOPS = {
    "scan": "    h, _ = jax.lax.scan(step, x, ws)\n",
    "loop": "    h = x\n    for w in ws:\n        h, _ = step(h, w)\n",
}
SMALL = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def step(h, w):
    a = checkpoint_name(jnp.tanh(h @ w), "attn")
    return h + jnp.sin(checkpoint_name(a @ w, "mlp")), None


def loss(ws, x):
LOOP    return jnp.mean(h ** 2)
"""


@pytest.mark.parametrize("written", LOOPS)
def test_every_placement_with_a_policy_computes_the_function_as_written(written):
    """The harness's placements with a policy change what is kept, never what is computed: 7
    blocks, sqrt(N) segments of 3 with a shorter last one, in a scan and in a Python loop."""
    source = SMALL.replace("LOOP", LOOPS[written])
    loop = explore_loops.find(source, "loss")
    assert (loop is None) == (written == "scan")
    harness, learner = {}, {}
    exec(HARNESS, harness)  # noqa: S102 - the judge's own code
    exec(loop.rewritten if loop else source, learner)  # noqa: S102 - a test's function
    rng = np.random.default_rng(0)
    ws = rng.standard_normal((7, 16, 16)).astype(np.float32) * 0.3
    x = rng.standard_normal((4, 16)).astype(np.float32)

    def gradient(key):
        return jax.jit(jax.value_and_grad(lambda w, h: harness["run"](learner["loss"], key, w, h), argnums=(0, 1)))

    value, grads = gradient("as written:")(ws, x)
    placed = [p for p in plans(["attn", "mlp"], blocks=True) if p.kind == "blocks+policy"]
    assert len(placed) == 8
    for plan in placed:
        placed_value, placed_grads = gradient(plan.key)(ws, x)
        np.testing.assert_allclose(placed_value, value, rtol=1e-5)
        for mine, theirs in zip(placed_grads, grads):
            np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-6)
        jaxpr = str(jax.make_jaxpr(lambda w, h, key=plan.key: harness["run"](learner["loss"], key, w, h))(ws, x))
        assert "remat" in jaxpr or "checkpoint" in jaxpr
        assert jax.lax.scan is harness["_scan"]
