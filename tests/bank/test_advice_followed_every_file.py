"""Every packaged wrong submission of the bank has its advice followed in a test: those that
`test_advice_followed` does not follow are followed here (the wrong answers, whose "Try:" sends the
learner to the statement's formula; code that does not run; a checkpoint decorated where its
argument must go through functools.partial), and a test checks that no packaged file is left out.

Followed, each is accepted, or told a strictly later problem that is taught (a cause and a "Try:"):
a file whose computation is mended can still checkpoint the wrong part."""

from pathlib import Path

import pytest

from judge.data import verdicts
from tests.bank.test_advice_followed_real_shapes import CHAIN, FOLLOWED, REMOVED, _told_then_followed

ROOT = Path(__file__).resolve().parents[2]
FORMULA = "compare each step of yours with the statement's formula"
ANOTHER_VALUE = "Your function computes another value than the statement's"

# (problem, packaged file, the cause's opening, a phrase of its advice, the edits)
ACCEPTED = [
    (
        "attention_keep_qkv",
        "wrong_answer/no_scaling.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            ("import jax\n", "import math\n\nimport jax\n"),
            ("jax.nn.softmax(q @ k.T, axis=-1)", "jax.nn.softmax(q @ k.T / math.sqrt(x.shape[-1]), axis=-1)"),
        ],
    ),
    (
        "attention_keep_qkv",
        "wrong_answer/softmax_over_queries.py",
        ANOTHER_VALUE,
        FORMULA,
        [("axis=0)", "axis=-1)")],
    ),
    (
        "checkpoint_dot_policy",
        "runtime_error/decorator_with_options.py",
        "Your decorator `@jax.checkpoint(policy=...)` (line 6) calls jax.checkpoint with options but no function",
        "Try: `@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)` "
        "(with `import functools` at the top) in place of `@jax.checkpoint(policy=...)`",
        [
            ("import jax\n", "import functools\n\nimport jax\n"),
            (
                "@jax.checkpoint(policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)",
                "@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)",
            ),
        ],
    ),
    (
        "checkpoint_dot_policy",
        "runtime_error/shape_mismatch.py",
        "Your matrix product's two sides do not fit (line 6)",
        # the first message names both problems, each with its "Try:"
        "Try: wrap the computation in jax.checkpoint(..., policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)",
        [
            ("def checkpoint_dot_policy(w1, w2, x):\n", "def computation(w1, w2, x):\n"),
            (
                "    return jnp.sum((jax.nn.relu(w1 @ x) @ w2) ** 2)\n",
                "    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)\n\n\ndef checkpoint_dot_policy(w1, w2, x):\n"
                "    return jax.checkpoint(computation, "
                "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(w1, w2, x)\n",
            ),
        ],
    ),
    (
        "checkpoint_dot_policy",
        "wrong_answer/forgot_square.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.sum(jax.nn.relu(x @ w1) @ w2)", "jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)")],
    ),
    (
        "checkpoint_dot_policy",
        "wrong_answer/returns_vector.py",
        "Your function returns an array of shape (8,), where the statement's returns a single number",
        "reduce the result to a single number",
        [(" ** 2, axis=1)", " ** 2)")],
    ),
    (
        "checkpoint_names",
        "wrong_answer/cos_instead_of_sin.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.cos(hidden @ w2)", "jnp.sin(hidden @ w2)")],
    ),
    (
        "checkpoint_per_layer",
        "wrong_answer/wrong_order.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.sin(layer(W3, layer(W2, layer(W1, x))))", "layer(W3, layer(W2, layer(W1, x)))")],
    ),
    (
        "compile_time_eval",
        "wrong_answer/weights_swapped.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            ("out + alpha * jnp.tanh(x @ W1)", "out + (1.0 - alpha) * jnp.tanh(x @ W1)"),
            ("out + (1.0 - alpha) * jnp.tanh(x @ W2)", "out + alpha * jnp.tanh(x @ W2)"),
        ],
    ),
    (
        "dots_with_batch_dims",
        "wrong_answer/softmax_wrong_axis.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jax.nn.softmax(scores, axis=1)", "jax.nn.softmax(scores, axis=-1)")],
    ),
    (
        "equinox_filter_checkpoint",
        "wrong_answer/sum_not_mean.py",
        ANOTHER_VALUE
        + ": it returns 0.3265 where 0.02721 is expected (case sample-1). It is 12 times the expected one",
        FORMULA,
        [("jnp.sum(apply(model, x) ** 2)", "jnp.mean(apply(model, x) ** 2)")],
    ),
    (
        "equinox_scan_layers",
        "wrong_answer/last_layer_first.py",
        ANOTHER_VALUE,
        FORMULA,
        [(", x, arrays, reverse=True)", ", x, arrays)")],
    ),
    (
        "fit_the_budget",
        "wrong_answer/checkpoint_drops_the_residual.py",
        ANOTHER_VALUE,
        FORMULA,
        [("return jnp.tanh(h @ w_in) @ w_out, None", "return h + jnp.tanh(h @ w_in) @ w_out, None")],
    ),
    (
        "fix_the_checkpoint",
        "wrong_answer/changed_math.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.sum(jnp.sin(hidden) @ W2)", "jnp.sum(jnp.sin(hidden @ W2))")],
    ),
    (
        "linearize_keeps",
        "wrong_answer/no_skip_connection.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            (
                "return jax.checkpoint(branch, policy=policy)(W1, W2, x)",
                "return x + jax.checkpoint(branch, policy=policy)(W1, W2, x)",
            )
        ],
    ),
    (
        "memory_budget_mlp",
        "wrong_answer/sum_not_mean.py",
        ANOTHER_VALUE + ": it returns 3402 where 0.4153 is expected (case sample-1). It is 8192 times the expected "
        "one: look for a scale, such as a sum where the statement takes a mean",
        FORMULA,
        [("return jnp.sum((h - y) ** 2)", "return jnp.mean((h - y) ** 2)")],
    ),
    (
        "memory_budget_transformer",
        "wrong_answer/no_residual_connection.py",
        ANOTHER_VALUE,
        FORMULA,
        [("h = (weights @ v) @ Wo", "h = h + (weights @ v) @ Wo")],
    ),
    (
        "offload_dots_to_host",
        "wrong_answer/tanh_after_relu.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            ("hidden = jax.nn.relu(x @ w1)", "hidden = jnp.tanh(x @ w1)"),
            ("jnp.sum(jnp.tanh(hidden @ w2) ** 2)", "jnp.sum(jax.nn.relu(hidden @ w2) ** 2)"),
        ],
    ),
    (
        "offload_some_names",
        "wrong_answer/cos_not_sin.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.cos(h1) @ w2", "jnp.sin(h1) @ w2")],
    ),
    (
        "prevent_cse_in_scan",
        "policy_violation/decorated_default.py",
        "Your jax.checkpoint (line 10) inside the scan has prevent_cse=True (its default)",
        "write the decorator at line 10 as `@functools.partial(jax.checkpoint, prevent_cse=False)` (with `import "
        "functools` at the top), in place of `@jax.checkpoint`",
        [
            ("import jax\n", "import functools\n\nimport jax\n"),
            ("@jax.checkpoint\ndef step", "@functools.partial(jax.checkpoint, prevent_cse=False)\ndef step"),
        ],
    ),
    (
        "prevent_cse_in_scan",
        "wrong_answer/cos_step.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.cos(h @ W)", "jnp.sin(h @ W)")],
    ),
    (
        "recompute_constants",
        "wrong_answer/decay_upper_triangle.py",
        ANOTHER_VALUE,
        FORMULA,
        [("(i[None, :] - i[:, None])", "(i[:, None] - i[None, :])")],
    ),
    (
        "recursive_checkpoint",
        "runtime_error/one_level_per_link.py",
        "On a hidden case, your code calls itself more deeply than Python allows",
        "let each call take half of what is left",
        [
            (
                "    def chain(v, n):\n        if n == 0:\n            return v\n"
                "        rest = jax.checkpoint(lambda u: chain(jnp.sin(u), n - 1), "
                "policy=jax.checkpoint_policies.nothing_saveable)\n        return rest(v)\n\n"
                "    return chain(x, depth)\n",
                CHAIN,
            )
        ],
    ),
    (  # a recursion over the list of links, one level per link: halving bounds it
        "recursive_checkpoint",
        "runtime_error/peel_one_link.py",
        "On a hidden case, your code calls itself more deeply than Python allows: your `compose` (line 5) calls itself",
        "let each call take half of what is left (have `compose` call itself on halves)",
        [
            (
                "    if not funs:\n        return lambda v: v\n    rest = compose(funs[1:])\n"
                "    return lambda v: jax.checkpoint(rest)(funs[0](v))\n",
                "    if len(funs) <= 2:\n        return lambda v: funs[-1](funs[0](v)) if len(funs) == 2 else funs[0](v)\n"
                "    first, second = compose(funs[: len(funs) // 2]), compose(funs[len(funs) // 2 :])\n"
                "    return lambda v: second(jax.checkpoint(first)(v))\n",
            )
        ],
    ),
    (
        "recursive_checkpoint",
        "wrong_answer/off_by_one.py",
        ANOTHER_VALUE,
        FORMULA,
        [("[jnp.sin] * (depth - 1)", "[jnp.sin] * depth")],
    ),
    (
        "save_any_names_but_these",
        "wrong_answer/sum_not_squared.py",
        ANOTHER_VALUE,
        FORMULA,
        [("return jnp.sum(layer3) ** 2", "return jnp.sum(layer3 ** 2)")],
    ),
    (
        "save_anything_except_these_names",
        "wrong_answer/cos_head.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.cos(big @ W3)", "jnp.sin(big @ W3)")],
    ),
    (
        "save_from_both_policies",
        "wrong_answer/tanh_gate.py",
        ANOTHER_VALUE,
        FORMULA,
        [("jnp.tanh(a)", "jax.nn.sigmoid(a)")],
    ),
    (
        "scan_of_scans",
        "wrong_answer/blocks_transposed.py",
        ANOTHER_VALUE,
        FORMULA,
        [("dts.reshape(n, n).T", "dts.reshape(n, n)")],
    ),
    (
        "scan_over_layers",
        "wrong_answer/reversed_layers.py",
        ANOTHER_VALUE,
        FORMULA,
        [(", x, Ws, reverse=True)", ", x, Ws)")],
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/flag_in_decorated.py",
        "Your code asks Python to branch on a traced value (line 10)",
        "add static_argnums=(2,) to your jax.checkpoint at line 7, as `@partial(jax.checkpoint, "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, static_argnums=(2,))`",
        [
            (
                "@partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)",
                "@partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, "
                "static_argnums=(2,))",
            )
        ],
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/flag_in_helper.py",
        "Your code asks Python to branch on a traced value (line 6)",
        "add static_argnums=(2,) to your jax.remat at line 17, as `jax.remat(body, "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, static_argnums=(2,))`",
        [
            (
                "jax.remat(body, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)",
                "jax.remat(body, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, static_argnums=(2,))",
            )
        ],
    ),
    (  # a bare decorator: the flag made static and the policy added, both through functools.partial
        "static_argnums_training_flag",
        "runtime_error/bare_decorator.py",
        "Your code asks Python to branch on a traced value (line 8)",
        "write the decorator at line 5 as `@functools.partial(jax.checkpoint, static_argnums=(2,))` (with `import "
        "functools` at the top), in place of `@jax.checkpoint`",
        [
            ("import jax\n", "import functools\n\nimport jax\n"),
            (
                "@jax.checkpoint\n",
                "@functools.partial(jax.checkpoint, static_argnums=(2,), "
                "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)\n",
            ),
        ],
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/remat_decorator.py",
        "Your code asks Python to branch on a traced value (line 8)",
        "write the decorator at line 5 as `@functools.partial(jax.remat, static_argnums=(2,))` (with `import "
        "functools` at the top), in place of `@jax.remat`",
        [
            ("import jax\n", "import functools\n\nimport jax\n"),
            (
                "@jax.remat\n",
                "@functools.partial(jax.remat, static_argnums=(2,), "
                "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)\n",
            ),
        ],
    ),
    (  # a conditional expression, not an `if` statement: the same change, in the learner's functools.partial
        "static_argnums_training_flag",
        "runtime_error/flag_in_expression.py",
        "Your code asks Python to branch on a traced value (line 10)",
        "add static_argnums=(2,) to your jax.checkpoint at line 7, as `@functools.partial(jax.checkpoint, "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, static_argnums=(2,))`; then `... if "
        "is_training else ...` sees a Python value",
        [
            (
                "dots_with_no_batch_dims_saveable)\n",
                "dots_with_no_batch_dims_saveable, static_argnums=(2,))\n",
            )
        ],
    ),
    (  # the flag passed by name: static_argnums alone would not count it, so the call changes too
        "static_argnums_training_flag",
        "runtime_error/flag_by_name.py",
        "Your code asks Python to branch on a traced value (line 7)",
        "add static_argnums=(2,) to your jax.checkpoint at line 14 and pass `is_training` by position in your call "
        "at line 14, as `jax.checkpoint(body, policy=policy, static_argnums=(2,))(W, x, is_training)`",
        [
            (
                "jax.checkpoint(body, policy=policy)(W, x, is_training=is_training)",
                "jax.checkpoint(body, policy=policy, static_argnums=(2,))(W, x, is_training)",
            )
        ],
    ),
    (  # the flag beside a shape in one condition: the flag is what must be static
        "static_argnums_training_flag",
        "runtime_error/flag_and_shape.py",
        "Your code asks Python to branch on a traced value (line 7)",
        "add static_argnums=(2,) to your jax.remat at line 12, as `jax.remat(body, "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, static_argnums=(2,))`; then `if "
        "is_training and a.shape[-1] > 1:` sees a Python value",
        [
            (
                "jax.remat(body, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)",
                "jax.remat(body, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, static_argnums=(2,))",
            )
        ],
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/static_flag_by_name.py",
        "Your checkpoint's static_argnums names an argument that your call passes by name (line 16)",
        "pass `is_training` by position in your call at line 16, as `_block(W, x, is_training)`",
        [("_block(W, x, is_training=is_training)", "_block(W, x, is_training)")],
    ),
    (
        "static_argnums_training_flag",
        "wrong_answer/mask_always.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            (
                "    a = jnp.tanh(x @ W) * jnp.where(jnp.arange(W.shape[1]) % 2 == 0, 2.0, 0.0)\n",
                "    a = jnp.tanh(x @ W)\n    if is_training:\n"
                "        a = a * jnp.where(jnp.arange(W.shape[1]) % 2 == 0, 2.0, 0.0)\n",
            )
        ],
    ),
    (
        "where_to_checkpoint",
        "wrong_answer/stage2_twice.py",
        ANOTHER_VALUE,
        FORMULA,
        [("stage3(W3, stage2(W2, stage2(W2, h)))", "stage3(W3, stage2(W2, h))")],
    ),
]

# Mended, the computation runs and is right, and the next problem is told: (..., its verdict and cause).
LATER = [
    (
        "checkpoint_dot_policy",
        "compile_error/syntax.py",
        "Your code is not valid Python at line 3",
        "end line 3 with a colon",
        [("def checkpoint_dot_policy(w1, w2, x)\n", "def checkpoint_dot_policy(w1, w2, x):\n")],
        verdicts.WRONG_ANSWER,
        "Your function returns",
    ),
    (
        "checkpoint_dot_policy",
        "compile_error/wrong_name.py",
        "Your code defines no function named `checkpoint_dot_policy`",
        "name your function `checkpoint_dot_policy`",
        [("def dot_policy(", "def checkpoint_dot_policy(")],
        verdicts.POLICY_VIOLATION,
        "Your program has no jax.checkpoint",
    ),
    (
        "fit_the_budget",
        "wrong_answer/segments_in_the_wrong_order.py",
        ANOTHER_VALUE,
        FORMULA,
        [("a.reshape(4, -1, *a.shape[1:]).swapaxes(0, 1)", "a.reshape(-1, 4, *a.shape[1:])")],
        verdicts.POLICY_VIOLATION,
        "Your gradient step peaks at",
    ),
]


@pytest.mark.parametrize("slug, relative, cause, advice, edits", ACCEPTED, ids=[f"{f[0]}/{f[1]}" for f in ACCEPTED])
def test_the_advice_followed_is_accepted(slug, relative, cause, advice, edits):
    followed = _told_then_followed(slug, relative, cause, advice, edits)
    assert followed.verdict == verdicts.ACCEPTED, followed.message


@pytest.mark.parametrize(
    "slug, relative, cause, advice, edits, verdict, next_cause", LATER, ids=[f"{f[0]}/{f[1]}" for f in LATER]
)
def test_the_advice_followed_leads_to_a_later_problem_that_is_taught(
    slug, relative, cause, advice, edits, verdict, next_cause
):
    followed = _told_then_followed(slug, relative, cause, advice, edits)
    assert followed.verdict == verdict and followed.cause.startswith(next_cause), followed.cause
    assert followed.cause and followed.advice.startswith("Try: "), followed.message


def test_every_packaged_wrong_submission_has_its_advice_followed():
    followed = {(f[0], f[1]) for f in FOLLOWED + REMOVED + ACCEPTED + LATER}
    packaged = {
        (p.parts[-4], f"{p.parent.name}/{p.name}")
        for p in (ROOT / "problems").glob("*/submissions/*/*.py")
        if p.parent.name != "accepted"
    }
    assert not packaged - followed, sorted(packaged - followed)
