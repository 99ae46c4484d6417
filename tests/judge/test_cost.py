"""The FLOP count the verdicts and the leaderboard read (``judge.inspection.program_cost``, the
verifier's walk over the StableHLO module it compiles): every operation counts, by a rule XLA
agrees with.

The cross-check holds our count of a gradient step to XLA's ``cost_analysis()`` of the very same
program, loop-free (XLA counts a loop body once). Against the program as JAX lowers it, before
XLA optimises it, the two count the same operations one by one: they agree within 2 %, the
difference being what XLA counts and we do not (the no-op ``reduce_precision`` markers of
policy-kept values, conversions). Against the compiled program they agree within 10 %: XLA's
simplifier rewrites elementwise chains, and may merge a recomputation (which is why our count,
not XLA's, ranks checkpointing strategies); the programs compared there have no checkpoint.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from judge import grade, load_problem
from judge.inspection import cost, operation_flops, program_cost

ROOT = Path(__file__).resolve().parents[2]
LOWERED_BOUND = 0.02
COMPILED_BOUND = 0.10


def _arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [jnp.asarray(rng.normal(size=shape), jnp.float32) for shape in shapes]


def _step(loss):
    """A gradient step as the judge measures one: the loss and its gradient with respect to every
    argument, the loss's cotangent an input (so that no multiply by a constant 1 is folded away)."""

    def step(*args_and_cotangent):
        *args, cotangent = args_and_cotangent
        value, backward = jax.vjp(loss, *args)
        return value, backward(cotangent)

    return step


def _with_cotangent(args) -> list:
    return [*args, jnp.float32(0.5)]


def _walked(function, *args) -> dict:
    """The verifier's walk over ``function``'s lowered program, every result needed."""
    module = jax.jit(function).lower(*args).compiler_ir("stablehlo")
    results = len(jax.tree_util.tree_leaves(jax.eval_shape(function, *args)))
    return program_cost.case_cost(module, [True] * results, [{"r", "i"} for _ in args])


def _ours(function, args) -> float:
    return _walked(function, *args)["flops"]


def _xla(function, args) -> tuple[float, float]:
    lowered = jax.jit(function).lower(*args)
    compiled = lowered.compile().cost_analysis()
    return cost.xla_operations(lowered.cost_analysis()), cost.xla_operations(compiled)


def mlp(w1, w2, x):
    return jnp.mean(jnp.tanh(x @ w1) @ w2)


def convolution(w, x):
    return jnp.sum(jax.lax.conv_general_dilated(x, w, (1, 1), "SAME") ** 2)


def strided_dilated_grouped(w, x):
    y = jax.lax.conv_general_dilated(
        x, w, (2, 1), ((1, 2), (0, 3)), lhs_dilation=(1, 2), rhs_dilation=(2, 1), feature_group_count=2
    )
    return jnp.sum(jnp.sin(y))


def elementwise(x):
    return jnp.sum(jnp.sin(x) * jnp.exp(x) + x * x - jnp.sqrt(jnp.abs(x) + 1.0) / (1.0 + jnp.cos(x) ** 2))


def softmax(x, w):
    return jnp.sum(jax.nn.softmax(x @ w, axis=-1) ** 2)


def layer_norm(x, w):
    h = x @ w
    centred = h - h.mean(-1, keepdims=True)
    return jnp.sum(centred / jnp.sqrt((centred**2).mean(-1, keepdims=True) + 1e-5))


def checkpointed(w1, w2, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(mlp, policy=policy)(w1, w2, x)


PROGRAMS = {
    "mlp": (mlp, (64, 128), (128, 32), (16, 64)),
    "convolution": (convolution, (8, 4, 3, 3), (2, 4, 16, 16)),
    "strided_dilated_grouped": (strided_dilated_grouped, (6, 2, 3, 2), (2, 4, 9, 7)),
    "elementwise": (elementwise, (256, 64)),
    "softmax": (softmax, (32, 64), (64, 48)),
    "layer_norm": (layer_norm, (32, 64), (64, 48)),
    "checkpointed": (checkpointed, (64, 128), (128, 32), (16, 64)),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_our_count_of_a_gradient_step_agrees_with_xla_on_loop_free_programs(name):
    loss, *shapes = PROGRAMS[name]
    args = _with_cotangent(_arrays(*shapes))
    step = _step(loss)
    ours = _ours(step, args)
    lowered, compiled = _xla(step, args)
    assert abs(ours / lowered - 1) <= LOWERED_BOUND, (ours, lowered)
    if name != "checkpointed":  # XLA may merge a recomputation once it compiles
        assert abs(ours / compiled - 1) <= COMPILED_BOUND, (ours, compiled)


def test_a_matrix_product_written_as_a_one_by_one_convolution_costs_what_the_product_costs():
    x, w = _arrays((32, 64), (64, 48))

    def as_matmul(x, w):
        return x @ w

    def as_convolution(x, w):  # batch 32 of 1x1 images with 64 features, 48 kernels of 1x1
        y = jax.lax.conv_general_dilated(x[:, :, None, None], w.T[:, :, None, None], (1, 1), "VALID")
        return y[:, :, 0, 0]

    assert _ours(as_convolution, (x, w)) == _ours(as_matmul, (x, w)) == 2 * 32 * 64 * 48
    gradient = lambda f: _step(lambda x, w: jnp.sum(f(x, w)))  # noqa: E731
    args = _with_cotangent((x, w))
    assert _ours(gradient(as_convolution), args) == _ours(gradient(as_matmul), args)


def test_a_convolution_counts_the_products_that_land_on_the_input_not_on_padding():
    w, x = _arrays((1, 1, 3), (1, 1, 5))
    # 5 outputs of a 3-tap kernel over padding 1 both sides: 3 taps each, but the first and the
    # last have one tap on the padding: 13 products, two operations each.
    assert _ours(lambda w, x: jax.lax.conv_general_dilated(x, w, (1,), ((1, 1),)), (w, x)) == 2 * 13


def test_a_while_loop_that_counts_runs_its_body_each_time():
    def counted(x):  # 0, 2, 4, 6: four iterations
        return jax.lax.while_loop(lambda c: c[0] < 7, lambda c: (c[0] + 2, c[1] * 2.0 + 1.0), (0, x))[1]

    body, condition = 1 + 2 * 3, 1  # the counter's add, two operations on three elements; one comparison
    assert _ours(counted, _arrays((3,))) == 4 * (body + condition) + condition

    def downwards(x):  # 10, 7, 4, 1
        return jax.lax.while_loop(lambda c: c[0] >= 0, lambda c: (c[0] - 3, c[1] * 2.0), (10, x))[1]

    assert _ours(downwards, _arrays((3,))) == 4 * (1 + 3 + 1) + 1

    def bound_first(x):  # 7 > 0, 7 > 2, 7 > 4, 7 > 6: the counter on the right of the comparison
        return jax.lax.while_loop(lambda c: 7 > c[0], lambda c: (c[0] + 2, c[1] * 2.0), (0, x))[1]

    assert _ours(bound_first, _arrays((3,))) == 4 * (1 + 3 + 1) + 1
    for runs_for_ever in (lambda c: c[0] < 7, lambda c: c[0] != 7):  # 0, -2, -4...: never 7 or more
        loop = lambda x, f=runs_for_ever: jax.lax.while_loop(f, lambda c: (c[0] - 2, c[1] * 2.0), (0, x))[1]  # noqa: E731
        assert _walked(loop, *_arrays((3,)))["uncounted_loops"] == 1


def test_a_fori_loop_with_traced_bounds_and_a_data_dependent_loop_count_one_iteration():
    def traced_bound(x, n):
        return jax.lax.fori_loop(0, n, lambda i, c: c * 1.5, x)

    def data_dependent(x):
        return jax.lax.while_loop(lambda c: jnp.sum(c) < 100.0, lambda c: c * 2.0, x)

    x = _arrays((3,))[0]
    assert _ours(traced_bound, (x, 5)) == (1 + 3 + 1) + 1
    assert _ours(data_dependent, (x,)) == 3 + (2 + 1) * 2  # body once, the condition twice


def test_scan_counts_its_body_per_step_and_cond_its_most_expensive_branch():
    x, w = _arrays((4, 8), (8, 8))
    scanned = lambda x, w: jax.lax.scan(lambda h, _: (jnp.tanh(h @ w), None), x, None, length=5)[0]  # noqa: E731
    # each step: the product, the tanh, and the loop's own counter (an add, a comparison); one more
    # comparison ends it
    assert _ours(scanned, (x, w)) == 5 * (2 * 4 * 8 * 8 + 4 * 8 + 2) + 1
    branches = lambda p, x, w: jax.lax.cond(p, lambda: x @ w, lambda: x * 2.0)  # noqa: E731
    assert _ours(branches, (True, x, w)) == 2 * 4 * 8 * 8


def test_recomputation_costs_its_forward_again_where_the_backward_pass_runs_it():
    w1, w2, x = _arrays((16, 32), (32, 8), (4, 16))
    loss = lambda f: _step(lambda w1, w2: jnp.sum(f(w1, w2, x)))  # noqa: E731
    args = _with_cotangent((w1, w2))
    plain = _ours(loss(lambda w1, w2, x: jnp.tanh(x @ w1) @ w2), args)
    everything_recomputed = _ours(loss(jax.checkpoint(lambda w1, w2, x: jnp.tanh(x @ w1) @ w2)), args)
    forward_of_the_first_layer = 2 * 4 * 16 * 32 + 4 * 32  # its product and its tanh
    assert everything_recomputed - plain == forward_of_the_first_layer


def test_custom_derivative_rules_count_what_they_compute():
    @jax.custom_vjp
    def square(x):
        return x * x

    square.defvjp(lambda x: (x * x, x), lambda x, g: (2.0 * x * g,))
    args = _with_cotangent(_arrays((10,)))
    step = _step(lambda x: jnp.sum(square(x)))
    # the forward's product and sum; the rule's two products, after the cotangent is broadcast
    assert _ours(step, args) == 10 + 9 + 2 * 10


def test_every_operation_named_free_is_one_of_the_pinned_jaxs_stablehlo():
    """A misspelt name in the free list would make that operation cost one per element, silently."""
    module = jax.jit(lambda x: x + 1).lower(1.0).compiler_ir("stablehlo")
    assert {name for name in operation_flops.FREE if not module.context.is_registered_operation(name)} == set()


def test_dead_code_that_differentiation_leaves_behind_costs_nothing():
    def gradient(x, cotangent):
        return jax.vjp(lambda x: jnp.sum(jax.nn.softmax(x, axis=-1) ** 2), x)[1](cotangent)

    args = _with_cotangent(_arrays((32, 48)))
    program = str(jax.make_jaxpr(gradient)(*args).jaxpr)
    # the loss itself, and what the derivative of max counts of its maxima: nothing reads them
    assert "_:f32[] = reduce_sum" in program and "_:f32[32] = reduce_sum" in program
    lowered, _ = _xla(gradient, args)
    assert _ours(gradient, args) == lowered


@pytest.mark.parametrize(
    "program, expected",
    [
        (lambda x: jnp.max(x, axis=1), 10 * 9),  # combining n elements takes n - 1 operations
        (lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (2, 2), (2, 2), "VALID"), 25 * 3),  # as XLA
        (lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (2, 2), (1, 1), "SAME"), 100 * 3),  # as XLA
        (lambda x: jnp.cumsum(x, axis=1), 10 * 10 * 9),  # a window of the whole row per output, as XLA runs it
        (jax.nn.sigmoid, 100 * 4),  # 1 / (1 + exp(-x)), as XLA counts it
        (lambda x: x.at[jnp.array([1, 2, 3])].add(1.0), 3 * 10 + 3 * 3),  # an add per update; negative indices wrapped
        (lambda x: jnp.sort(x, axis=1), 100 * 4),  # n log2 n comparisons per row
    ],
)
def test_reductions_windows_scatters_and_factorisations_by_their_rules(program, expected):
    assert math.isclose(_ours(program, _arrays((10, 10))), expected)


def test_integer_powers_cost_the_multiplies_of_repeated_squaring():
    x = _arrays((10,))[0]
    assert [_ours(lambda v, n=n: v**n, (x,)) for n in (2, 3, 4, 7)] == [10 * m for m in (1, 2, 2, 4)]
    assert math.isclose(_ours(lambda v: v**-2, (x,)), 10 * 2)


CONVOLUTIONS = ROOT / "tests" / "integrity" / "cases" / "memory_budget_mlp"


@pytest.fixture(scope="module")
def memory_budget():
    problem = load_problem(ROOT / "problems" / "memory_budget_mlp")
    return problem, grade(problem, problem.reference)


def test_matrix_products_as_convolutions_cost_what_the_products_cost_on_the_leaderboard(memory_budget):
    problem, reference = memory_budget
    report = grade(problem, (CONVOLUTIONS / "accepted" / "pairs_as_convolutions.py").read_text())
    assert report.verdict == "accepted", report.message
    assert report.cost.flops == reference.cost.flops  # the same plan: the same products, the same tanh


def test_recomputation_hidden_in_convolutions_meets_the_flop_ceiling(memory_budget):
    problem, _ = memory_budget
    report = grade(problem, (CONVOLUTIONS / "policy_violation" / "nested_as_convolutions.py").read_text())
    assert report.verdict == "policy_violation"
    # the step's figure against the ceiling, in the cause's sentence
    assert re.search(r"needs \d+ FLOPs, \d+ over the 32500000 allowed, because", report.message), report.message
    assert report.cost.flops > problem.cost_rules.max_flops > report.cost.flops / 1.2


def test_a_step_holding_random_keys_is_measured():
    # Equinox builds its layers from jax.random keys, whose dtype (key<fry>) is no numpy dtype:
    # every recorded submission to the Equinox problems ended in a runtime error when measured.
    def loss(w, x):
        noise = jax.random.normal(jax.random.fold_in(jax.random.key(0), 1), x.shape)
        return jnp.sum(jnp.tanh((x + noise) @ w))

    found = _walked(_step(loss), *_with_cotangent(_arrays((8, 4), (3, 8))))
    assert found["flops"] > 2 * 3 * 8 * 4 and found["peak_bytes"] > 0


@pytest.mark.parametrize("slug", ["equinox_filter_checkpoint", "equinox_scan_layers"])
def test_a_recorded_submission_to_an_equinox_problem_is_measured(slug):
    problem = load_problem(ROOT / "problems" / slug)
    report = grade(problem, problem.reference, measure_cost=True)  # as the site grades a "Submit"
    assert report.verdict == "accepted", report.message
    assert report.cost.flops > 0 and report.cost.peak_bytes > 0


def test_xla_estimates_are_the_verifiers_and_only_a_recorded_grading_pays_for_them():
    """XLA's figures of the first case's step are shown beside ours on the leaderboard: the verifier
    compiles that step alone for them, on a recorded grading only (a budget problem's Run samples
    measures our figures, which its rules read, and not XLA's)."""
    problem = load_problem(ROOT / "problems" / "checkpoint_dot_policy")
    recorded = grade(problem, problem.reference, measure_cost=True)
    ours, theirs = recorded.cost.flops, recorded.cost.xla_flops
    assert recorded.verdict == "accepted" and theirs is not None and recorded.cost.xla_peak_bytes > 0
    assert abs(ours / theirs - 1) <= COMPILED_BOUND, (ours, theirs)  # one case's step, not all cases'
    budget = load_problem(ROOT / "problems" / "memory_budget_transformer")
    sampled = grade(budget, budget.reference, samples_only=True)
    assert sampled.cost.peak_bytes > 0 and sampled.cost.xla_flops is None


def test_a_library_call_is_reported_by_what_the_learner_wrote_never_counted_as_cheap():
    """An SVD runs about n**3 multiply-adds in LAPACK, out of the program's sight: counted as one
    operation per element it made it passed a FLOP limit. The walk names the call instead."""
    (w,) = _arrays((64, 64))
    svd = _walked(lambda w: jnp.linalg.svd(w, compute_uv=False), w)
    assert svd["opaque_calls"] == ["lapack_sgesdd_ffi"]
    qr = _walked(lambda w: jnp.linalg.qr(w)[0], w)
    assert {"lapack_sgeqrf_ffi", "lapack_sorgqr_ffi"} <= set(qr["opaque_calls"])
    cholesky = _walked(lambda w: jax.lax.linalg.cholesky(w @ w.T, symmetrize_input=False), w)
    assert cholesky["opaque_calls"] == ["lapack_spotrf_ffi"]
    plain = _walked(lambda w: jnp.tanh(w @ w), w)
    assert "opaque_calls" not in plain and plain["flops"] == 2 * 64**3 + 64 * 64


def test_a_library_call_is_named_as_the_learner_wrote_it():
    from judge.data.library_calls import listed

    assert listed(["lapack_sgesdd_ffi"]) == "jnp.linalg.svd (lapack_sgesdd_ffi)"
    assert listed(["lapack_dgeqrf_ffi", "lapack_dorgqr_ffi"]) == "jnp.linalg.qr (lapack_dgeqrf_ffi, lapack_dorgqr_ffi)"
    assert listed(["vendor_kernel", "lapack_spotrf_ffi"]) == (
        "jnp.linalg.cholesky (lapack_spotrf_ffi) and the library routine vendor_kernel"
    )


def _heavy_combiner(a, b):
    for _ in range(10):
        b = jnp.sin(b) * jnp.cos(a) + b
    return a + b


@pytest.mark.parametrize(
    "program",
    [
        lambda x: jax.lax.reduce(x, 0.0, _heavy_combiner, (1,)),
        lambda x: jax.lax.reduce_window(x, 0.0, _heavy_combiner, (1, 4), (1, 4), "VALID"),
    ],
    ids=["reduce", "reduce_window"],
)
def test_a_reduction_costs_what_its_combiner_runs_each_time(program):
    """A learner's combiner of 41 operations: counted as one operation per element combined, as a
    sum's, the reduction cost a 41st of what XLA counts (sines and cosines counted as XLA's
    transcendentals)."""
    (x,) = _arrays((64, 256))
    lowered = jax.jit(program).lower(x)
    assert _ours(program, (x,)) == cost.xla_operations(lowered.cost_analysis())
    assert _ours(lambda x: jax.lax.reduce(x, 0.0, jax.lax.add, (1,)), (x,)) == 64 * 255  # a sum: one each


def test_loops_inside_a_combiner_are_counted_by_their_trips_or_reported():
    (x,) = _arrays((8, 16))

    def looping(a, b):
        return a + jax.lax.fori_loop(0, 5, lambda i, v: v * 1.5 + 1.0, b)

    # five trips of: the step's two operations, the index's add (i + 1), the trip counter's add and
    # comparison; one more comparison ends the loop; then the combiner's own add
    per_application = 5 * (2 + 1 + 2) + 1 + 1
    assert _ours(lambda x: jax.lax.reduce(x, 0.0, looping, (1,)), (x,)) == 8 * 15 * per_application

    def unbounded(a, b):
        return a + jax.lax.while_loop(lambda v: v < 100.0, lambda v: v * 2.0 + 1.0, b)

    assert _walked(lambda x: jax.lax.reduce(x, 0.0, unbounded, (1,)), x)["uncounted_loops"] == 1


def test_drawing_random_bits_costs_one_operation_per_word_as_xla_counts_it():
    """``lax.rng_bit_generator`` was in the free list, as data movement: a loop drawing random words
    burnt work that counted nothing."""
    key = jnp.zeros((4,), jnp.uint32)

    def draw(key):
        return jax.lax.rng_bit_generator(key, (64, 256), dtype=jnp.uint32)

    xla = jax.jit(draw).lower(key).cost_analysis()  # the draw among its "transcendentals"
    assert _ours(draw, (key,)) == xla["transcendentals"] >= 64 * 256
