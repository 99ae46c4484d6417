"""One trace per case (issue 10): the entry point runs once, the traced program is differentiated
once, and every reading comes from those; the marks that tell which checkpoint kept a value
change nothing of the program, and a submission cannot write them."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.ad_checkpoint import checkpoint_name

from judge.inspection import programs, replay
from judge.inspection.jax_internals import _jaxpr_as_fun
from judge.inspection.reading import read_case

ROOT = Path(__file__).resolve().parents[2]
FILE = __file__
cp = jax.checkpoint_policies
DOTS = cp.dots_with_no_batch_dims_saveable
RNG = np.random.default_rng(0)
ARGS = [RNG.standard_normal(shape).astype(np.float32) for shape in [(16, 16), (16, 16), (8, 16)]]


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def honest(w1, w2, x):
    return jax.checkpoint(pipeline, policy=DOTS)(w1, w2, x)


def over_jit(w1, w2, x):
    return jax.checkpoint(jax.jit(pipeline), policy=DOTS)(w1, w2, x)


def nested(w1, w2, x):
    def outer(w1, w2, x):
        h = jax.checkpoint(lambda w1, x: jax.nn.relu(x @ w1), policy=DOTS)(w1, x)
        return jnp.sum((h @ w2) ** 2)

    return jax.checkpoint(outer, policy=DOTS)(w1, w2, x)


def named_jitted(w1, w2, x):
    block = jax.jit(lambda w1, w2, x: jnp.sum(jnp.sin(checkpoint_name(jnp.tanh(x @ w1), "hidden") @ w2)))
    return jax.checkpoint(block, policy=cp.save_only_these_names("hidden"))(w1, w2, x)


def scanned_jitted_step(w1, w2, x):
    step = jax.checkpoint(jax.jit(lambda h, w: (jnp.tanh(h @ w), None)), policy=DOTS)
    return jnp.sum(jax.lax.scan(step, x, jnp.stack([w1, w2]))[0] ** 2)


def vmapped(w1, w2, x):
    row = jax.checkpoint(lambda w1, w2, r: jnp.sum((jax.nn.relu(r @ w1) @ w2) ** 2), policy=cp.dots_saveable)
    return jnp.sum(jax.vmap(row, in_axes=(None, None, 0))(w1, w2, x))


def offloaded(w1, w2, x):
    return jax.checkpoint(pipeline, policy=cp.offload_dot_with_no_batch_dims("device", "pinned_host"))(w1, w2, x)


def everything_nested_in_nothing(w1, w2, x):
    def outer(w1, w2, x):
        h = jax.checkpoint(lambda w1, x: jax.nn.relu(x @ w1))(w1, x)
        return jnp.sum((h @ w2) ** 2)

    return jax.checkpoint(outer, policy=cp.everything_saveable)(w1, w2, x)


PROGRAMS = [
    honest,
    over_jit,
    nested,
    named_jitted,
    scanned_jitted_step,
    vmapped,
    offloaded,
    everything_nested_in_nothing,
]


def read(fn, **options):
    return read_case(fn, ARGS, [0, 1, 2], ["w1", "w2", "x"], FILE, **options)


def run(derivative):
    flat = jax.jit(_jaxpr_as_fun(derivative.fwd))(*ARGS)
    outs, residuals = flat[: derivative.n_out], flat[derivative.n_out :]
    grads = jax.jit(_jaxpr_as_fun(derivative.bwd))(*residuals, *[np.ones(o.shape, o.dtype) for o in outs])
    return [np.asarray(v) for v in list(outs) + list(grads)]


@pytest.mark.parametrize("fn", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_the_marks_change_no_value_and_no_residual(fn):
    """What is read and exported is what JAX makes of the program without the judge's marks."""
    reading = read(fn)
    plain = replay.differentiate(replay.trace(fn, ARGS), ARGS, [0, 1, 2])
    assert [str(a) for a in reading.derivative.residual_avals] == [str(a) for a in plain.residual_avals]
    assert [(r["dtype"], r["shape"]) for r in reading.residuals] == [
        (np.dtype(a.dtype).name, list(a.shape)) for a in plain.residual_avals
    ]
    for mine, theirs in zip(run(reading.derivative), run(plain)):
        np.testing.assert_array_equal(mine, theirs)


def kept(fn) -> list[tuple]:
    reading = read(fn)
    return [(r["kind"], r["what"], r["kept_by"]) for r in reading.residuals if r["kept_by"] is not None]


def test_the_values_a_policy_keeps_are_read_through_jit_nesting_scan_and_names():
    assert kept(honest) == [("primitive", "dot_general", 0)] * 2
    assert kept(over_jit) == [("primitive", "dot_general", 0)] * 2  # no reduce_precision mark comes out of a jit
    assert kept(nested) == [("primitive", "dot_general", 0)] * 2  # the outer policy decides the forward pass
    assert kept(named_jitted) == [("named", "hidden", 0)]
    assert kept(scanned_jitted_step) == [("primitive", "dot_general", 0)]
    assert kept(offloaded) == [("primitive", "dot_general", 0)] * 2  # the products, the policy's copy looked through
    # nothing_saveable nested in everything_saveable: the outer policy keeps what is inside the inner one
    assert {kind for kind, _, index in kept(everything_nested_in_nothing)} == {"primitive"}


def test_a_mark_written_by_the_submission_says_nothing():
    def marked_by_hand(w1, w2, x):
        a = jax.lax.reduce_precision(x @ w1, 8, 23)
        z = jax.checkpoint(lambda a, w2: jax.nn.relu(a) @ w2, policy=cp.nothing_saveable)(a, w2)
        return jnp.sum(jax.lax.reduce_precision(z, 8, 23) ** 2)

    rows = read(marked_by_hand).residuals
    assert any(r["what"] == "dot_general" for r in rows)  # looked through: the learner's own product
    assert all(r["kept_by"] is None and not r["policy_saved"] for r in rows)


def test_the_entry_point_runs_once_and_policies_only_while_differentiated_once():
    calls = {"entry": 0, "policy": 0}

    def counting_policy(prim, *args, **params):
        calls["policy"] += 1
        return prim.name == "dot_general"

    def entry(w1, w2, x):
        calls["entry"] += 1
        return jax.checkpoint(pipeline, policy=counting_policy)(w1, w2, x)

    reading = read(entry, measure=True, printed=True)
    consulted = calls["policy"]
    assert calls["entry"] == 1 and consulted > 0
    programs.export_programs([reading.derivative])
    assert calls == {"entry": 1, "policy": consulted}  # exporting replays the programs, not the submission


def pipeline3(W1, W2, W3, x):
    return jnp.sin(W3 @ jnp.sin(W2 @ jnp.sin(W1 @ x)))


def verified_cost(fn, args, names) -> dict:
    """The step's figures as the verifier measures them (issue 21), on the programs the one trace
    exported: here in the test's process, which is trusted."""
    from judge.data.messages import Verified, VerifyCase, VerifyRequest
    from judge.in_child import verify

    reading = read_case(fn, args, list(range(len(args))), names, FILE)
    exported = programs.export_programs([reading.derivative])
    cotangent = [np.ones(a.shape, a.dtype) for a in reading.derivative.output_avals]
    request = VerifyRequest(
        exported["fwd"],
        exported["bwd"],
        list(range(len(args))),
        [VerifyCase("a", list(args), cotangent, list(args), cotangent)],
        cost=True,
    )
    answer = verify.serve(request)
    assert isinstance(answer, Verified), answer
    return {name: value for name, value in vars(answer.cases[0].cost).items() if value is not None}


def test_cases_of_the_same_shapes_run_one_exported_program_each_on_its_own_inputs():
    """One program per distinct shape (the child exports it once, the verifier compiles it once):
    each case still gets its own values, gradients and saved values, on its own hidden inputs."""
    from judge.data.messages import Failed, Verified, VerifyCase, VerifyRequest
    from judge.in_child import verify

    small = [RNG.standard_normal(shape).astype(np.float32) for shape in [(16, 16), (16, 16), (4, 16)]]
    first, second = (
        read_case(honest, ARGS, [0, 1, 2], ["w1", "w2", "x"], FILE),
        read_case(honest, small, [0, 1, 2], ["w1", "w2", "x"], FILE),
    )
    exported = programs.export_programs([first.derivative, second.derivative])
    one = np.ones((), np.float32)
    other = [a + 1 for a in ARGS]
    cases = [
        VerifyCase("a", ARGS, [one], other, [one * 2], 0),
        VerifyCase("b", small, [one], small, [one], 1),
        VerifyCase("c", other, [one * 3], ARGS, [one], 0),
    ]
    answer = verify.serve(VerifyRequest(exported["fwd"], exported["bwd"], [0, 1, 2], cases, cost=True))
    assert isinstance(answer, Verified) and [c.name for c in answer.cases] == ["a", "b", "c"]
    for case, got in zip(cases, answer.cases):
        for inputs, cotangent, value, grads in [
            (case.inputs, case.cotangent, got.value, got.grads),
            (case.hidden_inputs, case.hidden_cotangent, got.hidden_value, got.hidden_grads),
        ]:
            want, vjp = jax.vjp(pipeline, *inputs)
            np.testing.assert_allclose(value[0], want, rtol=1e-5)
            for g, w in zip(grads, vjp(cotangent[0])):
                np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    a, b, c = answer.cases
    assert a.cost == c.cost and a.cost.flops > b.cost.flops
    # the saved values' fingerprints are each case's own: c's public inputs are a's hidden ones
    prints = lambda case, key: [getattr(s, key) for s in case.saved]  # noqa: E731
    assert all(np.array_equal(x, y) for x, y in zip(prints(a, "hidden"), prints(c, "public")))
    assert not all(np.array_equal(x, y) for x, y in zip(prints(a, "public"), prints(c, "public")))
    unnamed = dataclasses.replace(cases[1], program=2)  # a program the bundle does not hold
    refused = verify.serve(VerifyRequest(exported["fwd"], exported["bwd"], [0, 1, 2], [cases[0], unnamed]))
    assert isinstance(refused, Failed) and "refused" in refused.error.message


PIPELINE3_ARGS = [RNG.standard_normal(s).astype(np.float32) for s in [(64, 16), (64, 64), (8, 64), (16,)]]


def held(fn) -> int:
    return verified_cost(fn, PIPELINE3_ARGS, ["W1", "W2", "W3", "x"])["held_peak_bytes"]


def test_a_checkpoint_recomputed_while_everything_else_is_kept_holds_as_much_as_none():
    def last_stage(W1, W2, W3, x):
        return jax.checkpoint(lambda W3, h: jnp.sin(W3 @ h))(W3, jnp.sin(W2 @ jnp.sin(W1 @ x)))

    def times_one(W1, W2, W3, x):
        return jax.checkpoint(pipeline3)(W1, W2, W3, x) * 1.0

    def first_stage(W1, W2, W3, x):
        return jnp.sin(W3 @ jnp.sin(W2 @ jax.checkpoint(lambda W1, x: jnp.sin(W1 @ x))(W1, x)))

    without = held(pipeline3)
    for idle in (last_stage, times_one):
        assert held(idle) >= without
    assert held(first_stage) < without


def test_the_whole_chain_recomputed_at_once_holds_it_all():
    def whole(x):
        def chain(v):
            v = jax.checkpoint(jnp.sin)(v)  # a token nested checkpoint changes nothing
            for _ in range(31):
                v = jnp.sin(v)
            return v

        return jax.checkpoint(chain)(x)

    def halving(x):
        def build(n):
            if n <= 2:
                return (lambda v: jnp.sin(jnp.sin(v))) if n == 2 else jnp.sin
            head, tail = build(n // 2), build(n - n // 2)
            return lambda v: tail(jax.checkpoint(head)(v))

        return build(32)(x)

    x = [np.ones(5, np.float32)]
    whole_held = verified_cost(whole, x, ["x"])["held_peak_bytes"]
    halving_held = verified_cost(halving, x, ["x"])["held_peak_bytes"]
    assert whole_held > 4 * halving_held  # about one value per link, against a few per level of halving


def test_host_memory_is_not_held_on_the_device():
    moved = [r for r in read(offloaded).residuals if r["memory"] == "pinned_host"]
    found = verified_cost(offloaded, ARGS, ["w1", "w2", "x"])
    assert found["held_host_bytes"] == sum(r["bytes"] for r in moved) > 0  # counted apart
    assert "held_host_bytes" not in verified_cost(honest, ARGS, ["w1", "w2", "x"])


def test_each_residual_says_which_memory_it_is_kept_in():
    memories = {(r["what"], r["memory"]) for r in read(offloaded).residuals}
    assert memories == {("w1", "device"), ("w2", "device"), ("x", "device"), ("dot_general", "pinned_host")}
    unpinned = read(
        lambda w1, w2, x: jax.checkpoint(pipeline, policy=cp.offload_dot_with_no_batch_dims("device", "unpinned_host"))(
            w1, w2, x
        )
    ).residuals
    assert {r["memory"] for r in unpinned} == {"device"}  # JAX 0.10.2 maps only pinned_host to the host


def test_remat3_reads_the_same_policy_kept_values():
    """JAX_REMAT3=true (the remat a later JAX makes the default): checkpoints are other primitives."""
    script = textwrap.dedent("""
        import jax, jax.numpy as jnp, numpy as np
        from judge.inspection.reading import read_case
        dots = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
        def pipeline(w1, w2, x):
            return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)
        for fn in (lambda w1, w2, x: jax.checkpoint(pipeline, policy=dots)(w1, w2, x),
                   lambda w1, w2, x: jax.checkpoint(jax.jit(pipeline), policy=dots)(w1, w2, x)):
            r = read_case(fn, [np.ones((4, 4), np.float32)] * 2 + [np.ones((2, 4), np.float32)], [0, 1, 2],
                          ["w1", "w2", "x"], "x.py")
            print([(row["what"], row["kept_by"]) for row in r.residuals if row["kind"] != "argument"],
                  [c["policy_text"] for c in r.structure["checkpoints"]])
    """)
    env = dict(os.environ, JAX_REMAT3="true", PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    expected = "[('dot_general', 0), ('dot_general', 0)] ['dots_with_no_batch_dims_saveable']"
    assert out.stdout.splitlines() == [expected, expected]
