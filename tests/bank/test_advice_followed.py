"""Each cause the bank's typical mistakes are told first, and its "Try:" line followed: the change
the advice names, made to the packaged file as a learner would make it, turns it accepted.

A "Try:" line that sends a learner the wrong way (nest checkpoints already nested, add a policy to a
checkpoint in the wrong place) fails here: the edit it names would not be accepted."""

from pathlib import Path

import pytest

from judge import load_problem
from judge.data import verdicts
from tests.bank.test_bank_validates import graded, graded_source

ROOT = Path(__file__).resolve().parents[2]

POLICY = "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable"
OWN_POLICY = (
    "def _all_but_big(prim, *_, **params):\n"
    "    return not (prim.name == 'name' and params['name'] == 'big')\n\n\n"
    "def keep_all_but_big("
)
# (problem, packaged file, the cause's opening, a phrase of its advice, the edit: (old, new) pairs)
FOLLOWED = [
    (
        "checkpoint_per_layer",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "checkpoint each turn of the loop at line 5: move its body into a function, say `def turn(W, x)` "
        "returning `x`, and write `x = jax.checkpoint(turn, policy=jax.checkpoint_policies.nothing_saveable)(W, x)`",
        [
            (
                "import jax.numpy as jnp\n",
                "import jax\nimport jax.numpy as jnp\n\n\ndef turn(W, x):\n    x = jnp.sin(W @ x)\n    return x\n",
            ),
            (
                "        x = jnp.sin(W @ x)\n",
                "        x = jax.checkpoint(turn, policy=jax.checkpoint_policies.nothing_saveable)(W, x)\n",
            ),
        ],
    ),
    (
        "memory_budget_transformer",
        "policy_violation/plain.py",
        "Your program has no jax.checkpoint",
        "checkpoint each turn of the loop at line 19: move its body into a function, say `def turn(i, h)` "
        "returning `h`, and write `h = jax.checkpoint(turn)(i, h)` in the loop",
        [
            (
                "    for i in range(Wq.shape[0]):\n        h = mlp(attention(h, Wq[i], Wk[i], Wv[i], Wo[i]), W1[i], W2[i])\n",
                "    def turn(i, h):\n        h = mlp(attention(h, Wq[i], Wk[i], Wv[i], Wo[i]), W1[i], W2[i])\n        return h\n\n"
                "    for i in range(Wq.shape[0]):\n        h = jax.checkpoint(turn)(i, h)\n",
            ),
        ],
    ),
    (
        "memory_budget_mlp",
        "policy_violation/plain.py",
        "Your program has no jax.checkpoint",
        "checkpoint the loop at line 11 in segments of 2 turns: a function that runs 2 of them, called through "
        "jax.checkpoint(...) once per segment",
        [
            (
                "    for i in range(Ws.shape[0]):\n        h = layer(h, Ws[i])\n",
                "    def segment(h, part):  # 2 turns\n        for W in part:\n            h = layer(h, W)\n        return h\n\n"
                "    last = 2 * ((Ws.shape[0] - 1) // 2)  # the last turns outside the segments\n"
                "    for start in range(0, last, 2):\n"
                "        h = jax.checkpoint(segment)(h, Ws[start:start + 2])\n"
                "    h = segment(h, Ws[last:])\n",
            ),
        ],
    ),
    (
        "recursive_checkpoint",
        "policy_violation/plain_chain.py",
        "Your program has no jax.checkpoint",
        "checkpoints inside checkpoints (2 levels at least)",
        [
            ("import jax.numpy as jnp\n", "import jax\nimport jax.numpy as jnp\n"),
            (
                "    for _ in range(depth):\n        x = jnp.sin(x)\n    return x\n",
                "    def chain(x, n):  # the first half checkpointed, and inside it its own halves again\n"
                "        if n == 1:\n            return jnp.sin(x)\n"
                "        half = n // 2\n"
                "        x = jax.checkpoint(lambda v: chain(v, half), policy=jax.checkpoint_policies.nothing_saveable)(x)\n"
                "        return chain(x, n - half)\n\n"
                "    return chain(x, depth)\n",
            ),
        ],
    ),
    (
        "recursive_checkpoint",
        "policy_violation/every_link.py",
        "None of your checkpoints is inside another",
        "put checkpoints inside the function another jax.checkpoint wraps (a chain: checkpoint its two halves, "
        "and inside each half its halves again)",
        [
            (
                "    for _ in range(depth):\n        x = link(x)\n    return x\n",
                "    def chain(x, n):  # the first half checkpointed, and inside it its own halves again\n"
                "        if n == 1:\n            return jnp.sin(x)\n"
                "        half = n // 2\n"
                "        x = jax.checkpoint(lambda v: chain(v, half))(x)\n"
                "        return chain(x, n - half)\n\n"
                "    return chain(x, depth)\n",
            ),
        ],
    ),
    (
        "scan_over_layers",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "jax.lax.scan(jax.checkpoint(lambda h, W: (jnp.tanh(h @ W), None), " + POLICY + "), ...)",
        [
            (
                "jax.lax.scan(lambda h, W: (jnp.tanh(h @ W), None), x, Ws)",
                "jax.lax.scan(jax.checkpoint(lambda h, W: (jnp.tanh(h @ W), None), " + POLICY + "), x, Ws)",
            )
        ],
    ),
    (
        "fit_the_budget",
        "policy_violation/as_given.py",
        "Your program has no jax.checkpoint",
        "jax.lax.scan(jax.checkpoint(block), ...)",
        [("jax.lax.scan(block, x, (W_in, W_out))", "jax.lax.scan(jax.checkpoint(block), x, (W_in, W_out))")],
    ),
    (
        "fit_the_budget",
        "policy_violation/least_held_segments.py",
        "Your gradient step peaks at 1548324 bytes alive at once, 198324 over the 1350000 allowed, because your jax.checkpoint wraps "
        "segments of 4 blocks (line 17",
        "jax.lax.scan(jax.checkpoint(block), ...)",
        [
            (
                "    parts = jax.tree.map(lambda a: a.reshape(-1, 4, *a.shape[1:]), (W_in, W_out))\n"
                "    h, _ = jax.lax.scan(segment, x, parts)\n",
                "    h, _ = jax.lax.scan(jax.checkpoint(block), x, (W_in, W_out))\n",
            )
        ],
    ),
    (
        "fix_the_checkpoint",
        "policy_violation/only_typo_fixed.py",
        'Your checkpoint_name at line 8 (`checkpoint_name(hidden, "hidden")`) labels a value your code never uses',
        'hidden = checkpoint_name(hidden, "hidden")',
        [('    checkpoint_name(hidden, "hidden")', '    hidden = checkpoint_name(hidden, "hidden")')],
    ),
    (
        "checkpoint_names",
        "policy_violation/label_dropped.py",
        "Your checkpoint_name at line 8",
        'hidden = checkpoint_name(hidden, "hidden")',
        [('    checkpoint_name(hidden, "hidden")', '    hidden = checkpoint_name(hidden, "hidden")')],
    ),
    (
        "checkpoint_names",
        "policy_violation/label_on_product.py",
        "Your label 'hidden' (line 7) is on the matrix product `x @ w1`, but the value the statement names 'hidden' "
        "is the tanh, which your code computes at line 8 (`hidden = jnp.tanh(pre)`)",
        'put it on the tanh at line 8, as checkpoint_name(jnp.tanh(pre), "hidden")',
        [
            ('pre = checkpoint_name(x @ w1, "hidden")', "pre = x @ w1"),
            ("hidden = jnp.tanh(pre)", 'hidden = checkpoint_name(jnp.tanh(pre), "hidden")'),
        ],
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/only_the_activation.py",
        "Your jax.checkpoint (line 6) uses no policy, which means nothing_saveable, and wraps only part of the "
        "computation",
        f"jax.checkpoint(f, {POLICY}), with nothing of it outside",
        [
            ("def checkpoint_dot_policy(w1, w2, x):\n", "def f(w1, w2, x):\n"),
            ("jax.checkpoint(jax.nn.relu)(x @ w1)", "jax.nn.relu(x @ w1)"),
            (
                "    return jnp.sum((hidden @ w2) ** 2)\n",
                "    return jnp.sum((hidden @ w2) ** 2)\n\n\n"
                f"def checkpoint_dot_policy(w1, w2, x):\n    return jax.checkpoint(f, {POLICY})(w1, w2, x)\n",
            ),
        ],
    ),
    (
        "scan_over_layers",
        "policy_violation/checkpoint_whole_scan.py",
        "Your jax.checkpoint (line 12) wraps the whole jax.lax.scan, not the step it runs",
        f"jax.lax.scan(jax.checkpoint(step, {POLICY}), ...)",
        [
            ("@jax.checkpoint\n", ""),
            (
                "jax.lax.scan(lambda h, W: (jnp.tanh(h @ W), None), x, Ws)",
                f"jax.lax.scan(jax.checkpoint(lambda h, W: (jnp.tanh(h @ W), None), {POLICY}), x, Ws)",
            ),
        ],
    ),
    (
        "equinox_scan_layers",
        "policy_violation/checkpoint_whole_scan.py",
        "Your eqx.filter_checkpoint (line 16) wraps the whole jax.lax.scan, not the step it runs",
        "jax.lax.scan(eqx.filter_checkpoint(step, policy=",
        [
            ("jax.lax.scan(step, x, arrays)", "jax.lax.scan(eqx.filter_checkpoint(step, policy=policy), x, arrays)"),
            ("eqx.filter_checkpoint(stack, policy=policy)(arrays, x)", "stack(arrays, x)"),
        ],
    ),
    (
        "save_anything_except_these_names",
        "policy_violation/wrong_label.py",
        "Your jax.checkpoint (line 17) uses a custom policy (all_but_small, defined at line 12), which saves the "
        "value named 'big' (line 8) and recomputes the one named 'small' (line 7)",
        "leave out the name 'big' instead of 'small'",
        [('params.get("name") == "small"', 'params.get("name") == "big"')],
    ),
    (
        "save_anything_except_these_names",
        "policy_violation/everything.py",
        "Your jax.checkpoint (line 14) uses everything_saveable, which saves the value named 'big' (line 8) too",
        "write the policy yourself",
        [("def keep_all_but_big(", OWN_POLICY), ("jax.checkpoint_policies.everything_saveable", "_all_but_big")],
    ),
    (
        "save_anything_except_these_names",
        "policy_violation/library_helper.py",
        "Your jax.checkpoint (line 14) uses save_anything_except_these_names, and it still saves the value named "
        "'big' (line 8): in JAX 0.10.2 that library policy ignores the names it is given",
        "write the policy yourself",
        [
            ("def keep_all_but_big(", OWN_POLICY),
            ('jax.checkpoint_policies.save_anything_except_these_names("big")', "_all_but_big"),
        ],
    ),
    (
        "save_anything_except_these_names",
        "policy_violation/names_only.py",
        "Your jax.checkpoint (line 14) uses save_any_names_but_these('big'), which keeps only values that carry a "
        "name, so the others, `jnp.tanh(small @ W2)` among them, are recomputed",
        "write the policy yourself",
        [
            ("def keep_all_but_big(", OWN_POLICY),
            ('jax.checkpoint_policies.save_any_names_but_these("big")', "_all_but_big"),
        ],
    ),
    (
        "compile_time_eval",
        "policy_violation/both_branches_where.py",
        "Your backward pass keeps the argument W2, which the reference solution's never reads: your code computes "
        "with it at line 13",
        "jax.ensure_compile_time_eval()",
        [
            (
                "    alpha = jax.nn.sigmoid(logit)\n",
                "    with jax.ensure_compile_time_eval():\n        alpha = jax.nn.sigmoid(logit)\n"
                "        use_first, use_second = alpha < 0.99, alpha > 0.01\n    out = 0.0\n",
            ),
            (
                "    first = jnp.where(alpha < 0.99, (1.0 - alpha) * jnp.tanh(x @ W1), 0.0)\n",
                "    if use_first:\n        out = out + (1.0 - alpha) * jnp.tanh(x @ W1)\n",
            ),
            (
                "    second = jnp.where(alpha > 0.01, alpha * jnp.tanh(x @ W2), 0.0)\n",
                "    if use_second:\n        out = out + alpha * jnp.tanh(x @ W2)\n",
            ),
            ("(first + second) ** 2", "out ** 2"),
        ],
    ),
    (
        "memory_budget_transformer",
        "policy_violation/attention_only.py",
        "Your gradient step peaks at 745480 bytes alive at once, 225480 over the 520000 allowed, because your code calls `mlp` without a "
        "checkpoint at line 21",
        "give that call a jax.checkpoint too: jax.checkpoint(mlp)(...) in the loop",
        [("h = mlp(attention(", "h = jax.checkpoint(mlp)(attention(")],
    ),
    (
        "memory_budget_mlp",
        "policy_violation/first_pairs_only.py",
        "Your gradient step peaks at 720904 bytes alive at once, 20904 over the 700000 allowed, because your code calls `segment` without "
        "a checkpoint at line 15 (`h = segment(h, Ws[4:])`)",
        "run in jax.checkpoint(segment)(...)",
        [("h = segment(h, Ws[4:])", "h = jax.checkpoint(segment)(h, Ws[4:6])\n    h = segment(h, Ws[6:])")],
    ),
    (
        "dots_with_batch_dims",
        "policy_violation/nothing_saveable.py",
        "Your jax.checkpoint (line 13) uses nothing_saveable, where this problem requires dots_saveable",
        "policy=jax.checkpoint_policies.dots_saveable",
        [("jax.checkpoint_policies.nothing_saveable", "jax.checkpoint_policies.dots_saveable")],
    ),
    (
        "memory_budget_mlp",
        "policy_violation/every_layer.py",
        "Your gradient step peaks at 720908 bytes alive at once, 20908 over the 700000 allowed, because each of your 7 checkpoints keeps "
        "its input between the passes",
        "segments of 2: one jax.checkpoint around every 2 of the parts you checkpoint one by one now",
        [("for size in (1, 1, 1, 1, 1, 1, 1):", "for size in (2, 2, 2):")],
    ),
    (
        "memory_budget_mlp",
        "policy_violation/seven_at_once.py",
        "Your gradient step peaks at 933896 bytes alive at once, 233896 over the 700000 allowed, because your jax.checkpoint (line 15) "
        "encloses 7 matrix products",
        "checkpoint smaller segments",
        [("for size in (7,):", "for size in (2, 2, 2):")],
    ),
    (
        "scan_of_scans",
        "policy_violation/two_big_blocks.py",
        "Your gradient step peaks at 150184 bytes alive at once, 66184 over the 84000 allowed, because your outer scan cuts the steps "
        "into 2 blocks (line 15",
        "math.isqrt(steps)",
        [
            ("dts.reshape(2, -1)", "dts.reshape(math.isqrt(dts.shape[0]), -1)"),
            ("import jax\n", "import math\n\nimport jax\n"),
        ],
    ),
    (
        "where_to_checkpoint",
        "policy_violation/only_last_stage.py",
        "Your checkpoints save no memory in the backward pass: your jax.checkpoint (line 19) wraps the last part",
        "checkpoint the early part instead",
        [
            (
                "h = stage2(W2, stage1(W1, x))",
                "h = jax.checkpoint(lambda W1, W2, x: stage2(W2, stage1(W1, x)))(W1, W2, x)",
            ),
            ("return jax.checkpoint(stage3)(W3, h)", "return stage3(W3, h)"),
        ],
    ),
    (
        "where_to_checkpoint",
        "policy_violation/whole_pipeline.py",
        "Your checkpoints save no memory in the backward pass: your jax.checkpoint wraps the whole computation",
        "checkpoint the early part instead",
        [
            ("@jax.checkpoint\n", ""),
            (
                "return stage3(W3, stage2(W2, stage1(W1, x)))",
                "return stage3(W3, jax.checkpoint(lambda W1, W2, x: stage2(W2, stage1(W1, x)))(W1, W2, x))",
            ),
        ],
    ),
    (
        "recompute_constants",
        "policy_violation/table_as_argument.py",
        "Your table is built outside your jax.checkpoint at line 6 (`i = jnp.arange(T)`)",
        "build the table inside the function you checkpoint",
        [
            ("def block(x, Wq, Wk, Wv, decay):\n", "def block(x, Wq, Wk, Wv):\n    decay = decay_matrix(x.shape[0])\n"),
            ("block(x, Wq, Wk, Wv, decay_matrix(x.shape[0]))", "block(x, Wq, Wk, Wv)"),
        ],
    ),
    (
        "recompute_constants",
        "policy_violation/table_outside.py",
        "Your table is built outside your jax.checkpoint at line 6 (`i = jnp.arange(x.shape[0])`)",
        "build the table inside the function you checkpoint",
        [
            ("    i = jnp.arange(x.shape[0])\n", ""),
            ("    gap = (i[:, None] - i[None, :]).astype(jnp.float32)\n", ""),
            ("    decay = jnp.where(gap >= 0, 0.9 ** gap, 0.0)  # built before the checkpoint, closed over\n", ""),
            (
                "        q, k, v = x @ Wq, x @ Wk, x @ Wv\n",
                "        i = jnp.arange(x.shape[0])\n        gap = (i[:, None] - i[None, :]).astype(jnp.float32)\n"
                "        decay = jnp.where(gap >= 0, 0.9 ** gap, 0.0)\n        q, k, v = x @ Wq, x @ Wk, x @ Wv\n",
            ),
        ],
    ),
    (
        "offload_some_names",
        "runtime_error/memories_swapped.py",
        "Your offloading policy moves saved values the wrong way",
        "offload_src='device', offload_dst='pinned_host'",
        [('offload_src="pinned_host", offload_dst="device"', 'offload_src="device", offload_dst="pinned_host"')],
    ),
    (
        "offload_some_names",
        "runtime_error/name_in_both_lists.py",
        "Your policy lists a name both among the values to keep on the device and among those to move to the host",
        "put each name in one list only",
        [('names_which_can_be_saved=["h1", "h2"]', 'names_which_can_be_saved=["h2"]')],
    ),
]

DNB = "jax.checkpoint_policies.dots_with_no_batch_dims_saveable"
QKV = 'jax.checkpoint_policies.save_only_these_names("q", "k", "v")'
OFFLOAD = (
    "jax.checkpoint_policies.save_and_offload_only_these_names(\n"
    '        names_which_can_be_saved=["h2"], names_which_can_be_offloaded=["h1"],\n'
    '        offload_src="device", offload_dst="pinned_host")'
)
TO_HOST = 'jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")'
BOTH = 'cp.save_from_both_policies(cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("gate"))'


def wrapped(entry: str, params: str, policy: str, last: str) -> list[tuple[str, str]]:
    """What "wrap the computation in jax.checkpoint(..., policy=...)" asks of a program whose entry
    point computes it all: the body becomes a function of its own, and the entry point checkpoints it."""
    return [
        (f"def {entry}({params}):\n", f"def computation({params}):\n"),
        (
            last,
            f"{last}\n\ndef {entry}({params}):\n    return jax.checkpoint(computation, policy={policy})({params})\n",
        ),
    ]


# The "Try: policy=... on that jax.checkpoint" family: the required policy written where the learner's stood.
FOLLOWED += [
    (
        "attention_keep_qkv",
        "policy_violation/forgot_v.py",
        "Your jax.checkpoint (line 17) uses save_only_these_names(",
        "policy=jax.checkpoint_policies.save_only_these_names(",
        [('save_only_these_names("q", "k")', 'save_only_these_names("q", "k", "v")')],
    ),
    (
        "attention_keep_qkv",
        "policy_violation/keeps_softmax.py",
        "Your jax.checkpoint (line 17) uses save_only_these_names(",
        "policy=jax.checkpoint_policies.save_only_these_names(",
        [('save_only_these_names("q", "k", "v", "weights")', 'save_only_these_names("q", "k", "v")')],
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/dots_saveable.py",
        "Your jax.checkpoint uses dots_saveable, where this problem requires dots_with_no_batch_dims_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("jax.checkpoint_policies.dots_saveable", DNB)],
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/everything_saveable.py",
        "Your jax.checkpoint (line 11) uses everything_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("jax.checkpoint_policies.everything_saveable", DNB)],
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/nothing_saveable.py",
        "Your jax.checkpoint (line 11) uses nothing_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("jax.checkpoint_policies.nothing_saveable", DNB)],
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/no_policy.py",
        "Your jax.checkpoint uses no policy, which means nothing_saveable",
        f"write the decorator at line 5 as `@functools.partial(jax.checkpoint, policy={DNB})` (with `import "
        "functools` at the top), in place of `@jax.checkpoint`",
        [
            ("import jax\n", "import functools\n\nimport jax\n"),
            ("@jax.checkpoint\n", f"@functools.partial(jax.checkpoint, policy={DNB})\n"),
        ],
    ),
    (
        "checkpoint_names",
        "policy_violation/dots_instead.py",
        "Your jax.checkpoint (line 11) uses dots_saveable, where this problem requires save_only_these_names('hidden')",
        "policy=jax.checkpoint_policies.save_only_these_names('hidden') on that jax.checkpoint",
        [("jax.checkpoint_policies.dots_saveable", 'jax.checkpoint_policies.save_only_these_names("hidden")')],
    ),
    (
        "checkpoint_names",
        "policy_violation/wrong_name_saved.py",
        "Your jax.checkpoint (line 12) uses save_only_these_names('pre')",
        "policy=jax.checkpoint_policies.save_only_these_names('hidden') on that jax.checkpoint",
        [('save_only_these_names("pre")', 'save_only_these_names("hidden")')],
    ),
    (
        "checkpoint_per_layer",
        "policy_violation/dots_policy_per_layer.py",
        "Your jax.checkpoint (line 8) uses dots_saveable, where this problem requires nothing_saveable",
        "policy=jax.checkpoint_policies.nothing_saveable on that jax.checkpoint",
        [("jax.checkpoint_policies.dots_saveable", "jax.checkpoint_policies.nothing_saveable")],
    ),
    (
        "compile_time_eval",
        "policy_violation/no_policy.py",
        "Your jax.checkpoint uses no policy, which means nothing_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("static_argnums=(3,))", f"static_argnums=(3,), policy={DNB})")],
    ),
    (
        "dots_with_batch_dims",
        "policy_violation/everything.py",
        "Your jax.checkpoint (line 13) uses everything_saveable, where this problem requires dots_saveable",
        "policy=jax.checkpoint_policies.dots_saveable on that jax.checkpoint",
        [("jax.checkpoint_policies.everything_saveable", "jax.checkpoint_policies.dots_saveable")],
    ),
    (
        "dots_with_batch_dims",
        "policy_violation/no_batch_dims.py",
        "Your jax.checkpoint (line 13) uses dots_with_no_batch_dims_saveable, where this problem requires dots_saveable",
        "policy=jax.checkpoint_policies.dots_saveable on that jax.checkpoint",
        [(DNB, "jax.checkpoint_policies.dots_saveable")],
    ),
    (
        "dots_with_batch_dims",
        "policy_violation/no_policy.py",
        "Your jax.checkpoint (line 13) uses no policy, which means nothing_saveable",
        "policy=jax.checkpoint_policies.dots_saveable on that jax.checkpoint",
        [("policy=None", "policy=jax.checkpoint_policies.dots_saveable")],
    ),
    (
        "equinox_filter_checkpoint",
        "policy_violation/everything_saveable.py",
        "Your eqx.filter_checkpoint (line 8) uses everything_saveable",
        f"policy={DNB} on that eqx.filter_checkpoint",
        [("jax.checkpoint_policies.everything_saveable", DNB)],
    ),
    (
        "equinox_filter_checkpoint",
        "policy_violation/no_policy.py",
        "Your eqx.filter_checkpoint (line 8) uses no policy, which means nothing_saveable",
        f"policy={DNB} on that eqx.filter_checkpoint",
        [("lambda m, x: jax.vmap(m)(x))", f"lambda m, x: jax.vmap(m)(x), policy={DNB})")],
    ),
    (
        "equinox_scan_layers",
        "policy_violation/no_policy.py",
        "Your eqx.filter_checkpoint uses no policy, which means nothing_saveable",
        f"policy={DNB} on that eqx.filter_checkpoint",
        [("eqx.filter_checkpoint(step)", f"eqx.filter_checkpoint(step, policy={DNB})")],
    ),
    (
        "fix_the_checkpoint",
        "policy_violation/only_name_used.py",
        "Your jax.checkpoint (line 13) uses save_only_these_names('hiden')",
        "policy=jax.checkpoint_policies.save_only_these_names('hidden') on that jax.checkpoint",
        [('save_only_these_names("hiden")', 'save_only_these_names("hidden")')],
    ),
    (
        "linearize_keeps",
        "policy_violation/bare_checkpoint.py",
        "Your jax.checkpoint (line 8) uses no policy, which means nothing_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("jnp.sin(jnp.tanh(x @ W1) @ W2))", f"jnp.sin(jnp.tanh(x @ W1) @ W2), policy={DNB})")],
    ),
    (
        "linearize_keeps",
        "policy_violation/keeps_everything.py",
        "Your jax.checkpoint (line 8) uses everything_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("jax.checkpoint_policies.everything_saveable", DNB)],
    ),
    (
        "offload_dots_to_host",
        "policy_violation/dots_on_device.py",
        "Your jax.checkpoint (line 11) uses dots_saveable",
        "policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host') on that jax.checkpoint",
        [("jax.checkpoint_policies.dots_saveable", TO_HOST)],
    ),
    (
        "offload_dots_to_host",
        "policy_violation/nothing_saveable.py",
        "Your jax.checkpoint (line 11) uses nothing_saveable",
        "policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host') on that jax.checkpoint",
        [("jax.checkpoint_policies.nothing_saveable", TO_HOST)],
    ),
    (
        "offload_dots_to_host",
        "policy_violation/unpinned_host.py",
        "Your jax.checkpoint (line 13) uses offload_dot_with_no_batch_dims('device', 'unpinned_host')",
        "policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host') on that jax.checkpoint",
        [('"device", "unpinned_host"', '"device", "pinned_host"')],
    ),
    (
        "offload_dots_to_host",
        "runtime_error/factory_not_called.py",
        "Your policy= is given the policy's factory, not a policy (line 12)",
        "policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host')",
        [("offload_dot_with_no_batch_dims\n", 'offload_dot_with_no_batch_dims("device", "pinned_host")\n')],
    ),
    (
        "offload_some_names",
        "policy_violation/all_on_device.py",
        "Your jax.checkpoint (line 15) uses save_only_these_names('h1', 'h2')",
        "policy=jax.checkpoint_policies.save_and_offload_only_these_names(names_which_can_be_saved=['h2'], "
        "names_which_can_be_offloaded=['h1'], offload_src='device', offload_dst='pinned_host') on that jax.checkpoint",
        [('jax.checkpoint_policies.save_only_these_names("h1", "h2")', OFFLOAD)],
    ),
    (
        "offload_some_names",
        "policy_violation/lists_swapped.py",
        "Your jax.checkpoint (line 17) uses save_and_offload_only_these_names with names in the wrong lists: your "
        "policy offloads `h2`, which the required policy keeps on the device, and keeps `h1` on the device",
        "names_which_can_be_saved=['h2'], names_which_can_be_offloaded=['h1']",
        [
            (
                'names_which_can_be_saved=["h1"], names_which_can_be_offloaded=["h2"]',
                'names_which_can_be_saved=["h2"], names_which_can_be_offloaded=["h1"]',
            )
        ],
    ),
    (
        "offload_some_names",
        "policy_violation/offload_both.py",
        "Your jax.checkpoint (line 17) uses save_and_offload_only_these_names with names in the wrong lists: your "
        "policy offloads `h2`, which the required policy keeps on the device.",
        "names_which_can_be_saved=['h2'], names_which_can_be_offloaded=['h1']",
        [
            (
                'names_which_can_be_saved=[], names_which_can_be_offloaded=["h1", "h2"]',
                'names_which_can_be_saved=["h2"], names_which_can_be_offloaded=["h1"]',
            )
        ],
    ),
    (
        "save_any_names_but_these",
        "policy_violation/dots.py",
        "Your jax.checkpoint (line 14) uses dots_saveable",
        "policy=jax.checkpoint_policies.save_any_names_but_these('layer2') on that jax.checkpoint",
        [("jax.checkpoint_policies.dots_saveable", 'jax.checkpoint_policies.save_any_names_but_these("layer2")')],
    ),
    (
        "save_any_names_but_these",
        "policy_violation/everything_but_broken.py",
        "Your jax.checkpoint (line 14) uses save_anything_except_these_names()",
        "policy=jax.checkpoint_policies.save_any_names_but_these('layer2') on that jax.checkpoint",
        [("save_anything_except_these_names(", "save_any_names_but_these(")],
    ),
    (
        "save_any_names_but_these",
        "policy_violation/only_these_names.py",
        "Your jax.checkpoint (line 14) uses save_only_these_names('layer1', 'layer3')",
        "policy=jax.checkpoint_policies.save_any_names_but_these('layer2') on that jax.checkpoint",
        [('save_only_these_names("layer1", "layer3")', 'save_any_names_but_these("layer2")')],
    ),
    (
        "save_any_names_but_these",
        "policy_violation/wrong_exception.py",
        "Your jax.checkpoint (line 14) uses save_any_names_but_these('layer3')",
        "policy=jax.checkpoint_policies.save_any_names_but_these('layer2') on that jax.checkpoint",
        [('save_any_names_but_these("layer3")', 'save_any_names_but_these("layer2")')],
    ),
    (
        "save_from_both_policies",
        "policy_violation/dots_only.py",
        "Your jax.checkpoint (line 15) uses dots_with_no_batch_dims_saveable",
        "policy=jax.checkpoint_policies.save_from_both_policies(dots_with_no_batch_dims_saveable, "
        "save_only_these_names('gate')) on that jax.checkpoint",
        [("cp.dots_with_no_batch_dims_saveable)", f"{BOTH})")],
    ),
    (
        "save_from_both_policies",
        "policy_violation/everything.py",
        "Your jax.checkpoint (line 15) uses everything_saveable",
        "policy=jax.checkpoint_policies.save_from_both_policies(",
        [("cp.everything_saveable", BOTH)],
    ),
    (
        "save_from_both_policies",
        "policy_violation/gate_only.py",
        "Your jax.checkpoint (line 15) uses save_only_these_names('gate')",
        "policy=jax.checkpoint_policies.save_from_both_policies(",
        [('cp.save_only_these_names("gate")', BOTH)],
    ),
    (
        "scan_over_layers",
        "policy_violation/bare_checkpoint.py",
        "Your jax.checkpoint uses no policy, which means nothing_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("(jnp.tanh(h @ W), None))", f"(jnp.tanh(h @ W), None), policy={DNB})")],
    ),
    (
        "static_argnums_training_flag",
        "policy_violation/no_policy.py",
        "Your jax.checkpoint uses no policy, which means nothing_saveable",
        f"policy={DNB} on that jax.checkpoint",
        [("static_argnums=(2,))", f"static_argnums=(2,), policy={DNB})")],
    ),
    (
        "prevent_cse_in_scan",
        "policy_violation/default_everywhere.py",
        "Your jax.checkpoint (line 15) inside the scan has prevent_cse=True",
        "jax.checkpoint(..., prevent_cse=False) at line 15",
        [("jax.checkpoint(step, prevent_cse=True)", "jax.checkpoint(step, prevent_cse=False)")],
    ),
    (
        "prevent_cse_in_scan",
        "policy_violation/false_everywhere.py",
        "Your jax.checkpoint (line 14) outside any scan has prevent_cse=False",
        "jax.checkpoint(..., prevent_cse=True) at line 14",
        [("jax.checkpoint(embed, prevent_cse=False)", "jax.checkpoint(embed, prevent_cse=True)")],
    ),
    (
        "checkpoint_dot_policy",
        "runtime_error/string_policy.py",
        "Your code calls a string as a function (line 7)",
        "policy=jax.checkpoint_policies.<name> (no quotes)",
        [('policy="dots_with_no_batch_dims_saveable"', f"policy={DNB}")],
    ),
]

# "Try: wrap the computation in jax.checkpoint(..., policy=...)", followed.
FOLLOWED += [
    (
        "attention_keep_qkv",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "wrap the computation in jax.checkpoint(..., policy=jax.checkpoint_policies.save_only_these_names(",
        wrapped("attention_block", "x, Wq, Wk, Wv, Wo", QKV, "    return jnp.sum(jnp.tanh((weights @ v) @ Wo))\n"),
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        f"wrap the computation in jax.checkpoint(..., policy={DNB})",
        wrapped("checkpoint_dot_policy", "w1, w2, x", DNB, "    return jnp.sum((y @ w2) ** 2)\n"),
    ),
    (
        "linearize_keeps",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        f"wrap the computation in jax.checkpoint(..., policy={DNB})",
        wrapped("features", "W1, W2, x", DNB, "    return x + jnp.sin(jnp.tanh(x @ W1) @ W2)\n"),
    ),
    (
        "offload_dots_to_host",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "wrap the computation in jax.checkpoint(..., policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims(",
        wrapped("offload_mlp", "w1, w2, x", TO_HOST, "    return jnp.sum(jax.nn.relu(hidden @ w2) ** 2)\n"),
    ),
    (
        "offload_some_names",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "wrap the computation in jax.checkpoint(..., policy=jax.checkpoint_policies.save_and_offload_only_these_names(",
        [("import jax.numpy", "import jax\nimport jax.numpy")]
        + wrapped("offload_names", "w1, w2, w3, x", OFFLOAD, "    return jnp.sum(logits ** 2)\n"),
    ),
    (
        "recompute_constants",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "wrap the computation in jax.checkpoint(..., policy=jax.checkpoint_policies.nothing_saveable)",
        wrapped(
            "retention",
            "x, Wq, Wk, Wv",
            "jax.checkpoint_policies.nothing_saveable",
            "    return jnp.sum(jnp.tanh(((q @ k.T) * decay) @ v))\n",
        ),
    ),
]

# "Try: move that line into the function you checkpoint", followed.
FOLLOWED += [
    (
        "checkpoint_dot_policy",
        "policy_violation/partial_checkpoint.py",
        "Part of the computation lies outside your jax.checkpoint (line 11): line 9",
        "move that line into the function you checkpoint",
        [
            ("    y = jax.nn.relu(x @ w1)\n", ""),
            (
                "lambda y, w2: jnp.sum((y @ w2) ** 2)",
                "lambda w1, w2, x: jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)",
            ),
            ("tail(y, w2)", "tail(w1, w2, x)"),
        ],
    ),
    (
        "checkpoint_names",
        "policy_violation/name_outside_checkpoint.py",
        "Part of the computation lies outside your jax.checkpoint (line 12): line 10",
        "move that line into the function you checkpoint",
        [
            ('    hidden = checkpoint_name(jnp.tanh(x @ w1), "hidden")\n', ""),
            (
                "lambda h, w2: jnp.sum(jnp.sin(h @ w2))",
                'lambda w1, w2, x: jnp.sum(jnp.sin(checkpoint_name(jnp.tanh(x @ w1), "hidden") @ w2))',
            ),
            ("tail(hidden, w2)", "tail(w1, w2, x)"),
        ],
    ),
    (
        "linearize_keeps",
        "policy_violation/second_layer_only.py",
        "Part of the computation lies outside your jax.checkpoint (line 9): line 8",
        "move that line into the function you checkpoint",
        [
            ("    hidden = jnp.tanh(x @ W1)  # outside the checkpoint: its derivative factor is kept as usual\n", ""),
            ("lambda h, W2: jnp.sin(h @ W2)", "lambda W1, W2, x: jnp.sin(jnp.tanh(x @ W1) @ W2)"),
            ("(hidden, W2)", "(W1, W2, x)"),
        ],
    ),
]

CHAIN = (
    "    def chain(x, n):  # the first half checkpointed, and inside it its own halves again\n"
    "        if n == 1:\n            return jnp.sin(x)\n"
    "        half = n // 2\n"
    "        x = jax.checkpoint(lambda v: chain(v, half))(x)\n"
    "        return chain(x, n - half)\n\n"
    "    return chain(x, depth)\n"
)
SCAN_OF_SCANS = (
    "    blocks = math.isqrt(dts.shape[0])\n\n"
    "    @jax.checkpoint\n"
    "    def block(h, block_dts):\n"
    "        return jax.lax.scan(jax.checkpoint(step), h, block_dts)[0], None\n\n"
    "    h, _ = jax.lax.scan(block, h0, dts.reshape(blocks, -1))\n"
)

# Advice that names the learner's own code: their label, their call, their flag, their scan's step.
FOLLOWED += [
    (
        "attention_keep_qkv",
        "policy_violation/dots_keep_scores.py",
        "Your jax.checkpoint (line 14) uses dots_saveable",
        "and label the values it keeps, 'k', 'q', 'v', where your code makes them",
        [
            ("import jax.numpy as jnp\n", "import jax.numpy as jnp\nfrom jax.ad_checkpoint import checkpoint_name\n"),
            (
                "q, k, v = x @ Wq, x @ Wk, x @ Wv",
                'q, k, v = checkpoint_name(x @ Wq, "q"), checkpoint_name(x @ Wk, "k"), checkpoint_name(x @ Wv, "v")',
            ),
            ("jax.checkpoint_policies.dots_saveable", QKV),
        ],
    ),
    (
        "attention_keep_qkv",
        "policy_violation/projections_outside.py",
        'Part of the computation lies outside your jax.checkpoint: line 12 (`q = checkpoint_name(x @ Wq, "q")`)',
        "move those lines into the function you checkpoint, and pass it the inputs they read",
        [
            (
                '    q = checkpoint_name(x @ Wq, "q")\n    k = checkpoint_name(x @ Wk, "k")\n    v = checkpoint_name(x @ Wv, "v")\n\n',
                "",
            ),
            (
                "    def attend(q, k, v, Wo):\n",
                '    def attend(x, Wq, Wk, Wv, Wo):\n        q = checkpoint_name(x @ Wq, "q")\n'
                '        k = checkpoint_name(x @ Wk, "k")\n        v = checkpoint_name(x @ Wv, "v")\n',
            ),
            ("(q, k, v, Wo)", "(x, Wq, Wk, Wv, Wo)"),
        ],
    ),
    (
        "checkpoint_per_layer",
        "policy_violation/first_two_only.py",
        "Your code calls `layer` without a checkpoint at line 12 (`return layer(W3, x)`)",
        "jax.checkpoint(layer, policy=jax.checkpoint_policies.nothing_saveable)(...) at line 12",
        [
            (
                "return layer(W3, x)",
                "return jax.checkpoint(layer, policy=jax.checkpoint_policies.nothing_saveable)(W3, x)",
            )
        ],
    ),
    (
        "checkpoint_names",
        "policy_violation/misspelled_name.py",
        "Your jax.checkpoint (line 11) uses save_only_these_names('Hidden')",
        "and rename your label 'Hidden' (line 8) to 'hidden'",
        [('save_only_these_names("Hidden")', 'save_only_these_names("hidden")'), ('"Hidden")', '"hidden")')],
    ),
    (
        "fix_the_checkpoint",
        "policy_violation/label_renamed.py",
        "Your jax.checkpoint (line 14) uses save_only_these_names('hiden')",
        "and rename your label 'hiden' (line 8) to 'hidden'",
        [
            ('checkpoint_name(hidden, "hiden")', 'checkpoint_name(hidden, "hidden")'),
            ('names("hiden")', 'names("hidden")'),
        ],
    ),
    (
        "fix_the_checkpoint",
        "policy_violation/unchanged_starter.py",
        "Your jax.checkpoint (line 14) uses save_only_these_names('hiden')",
        'and use what checkpoint_name returns at line 8: hidden = checkpoint_name(hidden, "hidden")',
        [
            ('    checkpoint_name(hidden, "hidden")', '    hidden = checkpoint_name(hidden, "hidden")'),
            ('names("hiden")', 'names("hidden")'),
        ],
    ),
    (
        "prevent_cse_in_scan",
        "policy_violation/swapped.py",
        "Your jax.checkpoint (line 14) outside any scan has prevent_cse=False",
        "jax.checkpoint(..., prevent_cse=True) at line 14 and jax.checkpoint(..., prevent_cse=False) at line 15",
        [
            ("jax.checkpoint(embed, prevent_cse=False)", "jax.checkpoint(embed, prevent_cse=True)"),
            ("jax.checkpoint(step, prevent_cse=True)", "jax.checkpoint(step, prevent_cse=False)"),
        ],
    ),
    (
        "recompute_constants",
        "policy_violation/numpy_table.py",
        "Your table is built with NumPy at line 8",
        "write the table's lines with jax.numpy where they stand",
        [
            ("np.arange(", "jnp.arange("),
            (
                "np.where(gap >= 0, 0.9 ** gap, 0.0).astype(np.float32)",
                "jnp.where(gap >= 0, 0.9 ** gap, 0.0).astype(jnp.float32)",
            ),
        ],
    ),
    (
        "equinox_scan_layers",
        "runtime_error/scan_the_module.py",
        "Your code passes a model that holds functions",
        "arrays, rest = eqx.partition(model, eqx.is_array) before the scan, jax.lax.scan(step, x, arrays)",
        [
            (
                "    def step(h, block):\n        return jax.vmap(block)(h), None\n",
                "    arrays, rest = eqx.partition(blocks, eqx.is_array)\n\n"
                "    def step(h, layer_arrays):\n        return jax.vmap(eqx.combine(layer_arrays, rest))(h), None\n",
            ),
            ("jax.lax.scan(step, x, blocks)", "jax.lax.scan(step, x, arrays)"),
        ],
    ),
    (
        "equinox_filter_checkpoint",
        "runtime_error/plain_jax_checkpoint.py",
        "Your code passes a model that holds functions",
        "eqx.filter_checkpoint in place of jax.checkpoint (import equinox as eqx)",
        [
            ("import jax\n", "import equinox as eqx\nimport jax\n"),
            ("apply = jax.checkpoint(", "apply = eqx.filter_checkpoint("),
        ],
    ),
    (
        "compile_time_eval",
        "runtime_error/comparison_outside.py",
        "Your code asks Python to branch on a traced value (line 12)",
        "compute the conditions inside your `with jax.ensure_compile_time_eval():` block (line 9), as "
        "`use_1 = alpha < 0.99` and `use_2 = alpha > 0.01`, and branch on `if use_1:`, `if use_2:`",
        [
            (
                "        alpha = jax.nn.sigmoid(logit)\n",
                "        alpha = jax.nn.sigmoid(logit)\n        use_1 = alpha < 0.99\n        use_2 = alpha > 0.01\n",
            ),
            ("if alpha < 0.99:", "if use_1:"),
            ("if alpha > 0.01:", "if use_2:"),
        ],
    ),
    (
        "compile_time_eval",
        "runtime_error/no_compile_time_eval.py",
        "Your code asks Python to branch on a traced value (line 11)",
        "compute `alpha` (line 9) and the conditions under `with jax.ensure_compile_time_eval():`",
        [
            (
                "    alpha = jax.nn.sigmoid(logit)\n",
                "    with jax.ensure_compile_time_eval():\n        alpha = jax.nn.sigmoid(logit)\n"
                "        use_1 = alpha < 0.99\n        use_2 = alpha > 0.01\n",
            ),
            ("if alpha < 0.99:", "if use_1:"),
            ("if alpha > 0.01:", "if use_2:"),
        ],
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/traced_flag.py",
        "Your code asks Python to branch on a traced value (line 8)",
        "make `is_training` a static argument of your checkpoint of body: add static_argnums=(2,) to your "
        f"jax.checkpoint at line 12, as `jax.checkpoint(body, policy={DNB}, static_argnums=(2,))`",
        [(f"jax.checkpoint(body, policy={DNB})", f"jax.checkpoint(body, policy={DNB}, static_argnums=(2,))")],
    ),
    (
        "equinox_scan_layers",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        f"jax.lax.scan(eqx.filter_checkpoint(step, policy={DNB}), ...)",
        [("jax.lax.scan(step, x, arrays)", f"jax.lax.scan(eqx.filter_checkpoint(step, policy={DNB}), x, arrays)")],
    ),
    (
        "fit_the_budget",
        "policy_violation/dots_saved.py",
        "Your jax.checkpoint (line 13) wraps the whole jax.lax.scan, not the step it runs",
        "jax.lax.scan(jax.checkpoint(block), ...), with no checkpoint around the scan itself",
        [
            (
                "    loss = jax.checkpoint(_loss, policy=jax.checkpoint_policies.dots_saveable)\n    return loss(",
                "    return _loss(",
            ),
            ("jax.lax.scan(block, x, (W_in, W_out))", "jax.lax.scan(jax.checkpoint(block), x, (W_in, W_out))"),
        ],
    ),
    (
        "fit_the_budget",
        "policy_violation/whole_function.py",
        "Your jax.checkpoint wraps the whole jax.lax.scan, not the step it runs",
        "jax.lax.scan(jax.checkpoint(block), ...), with no checkpoint around the scan itself",
        [
            ("@jax.checkpoint  # holds least between the passes, but rebuilds all twelve blocks at once\n", ""),
            ("jax.lax.scan(block, x, (W_in, W_out))", "jax.lax.scan(jax.checkpoint(block), x, (W_in, W_out))"),
        ],
    ),
    (
        "where_to_checkpoint",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "checkpoint the early part of the computation: wrap its first stages in jax.checkpoint(..., "
        "policy=jax.checkpoint_policies.nothing_saveable) and leave the last stage outside",
        [
            (
                "return stage3(W3, stage2(W2, stage1(W1, x)))",
                "first = jax.checkpoint(lambda W1, W2, x: stage2(W2, stage1(W1, x)), "
                "policy=jax.checkpoint_policies.nothing_saveable)\n    return stage3(W3, first(W1, W2, x))",
            )
        ],
    ),
    (
        "scan_of_scans",
        "policy_violation/blocks_without_inner_checkpoint.py",
        "None of your checkpoints is inside another",
        "checkpoint `step` too, the step your scan at line 15 runs: jax.lax.scan(jax.checkpoint(step), ...) there",
        [("jax.lax.scan(step, h, block_dts)", "jax.lax.scan(jax.checkpoint(step), h, block_dts)")],
    ),
    (
        "scan_of_scans",
        "policy_violation/flat_checkpointed_step.py",
        "None of your checkpoints is inside another",
        "a scan of scans: cut the steps into blocks (xs.reshape(math.isqrt(n), -1) for n steps)",
        [
            ("import jax\n", "import math\n\nimport jax\n"),
            ("    @jax.checkpoint\n    def step", "    def step"),
            ("    h, _ = jax.lax.scan(step, h0, dts)\n", SCAN_OF_SCANS),
        ],
    ),
    (
        "scan_of_scans",
        "policy_violation/checkpoint_whole_loop.py",
        "None of your checkpoints is inside another",
        "and remove any checkpoint around the whole scan",
        [
            ("import jax\n", "import math\n\nimport jax\n"),
            (
                "    @jax.checkpoint\n    def integrate(h0, dts):\n        return jax.lax.scan(step, h0, dts)[0]\n\n",
                "",
            ),
            ("    return jnp.sum(integrate(h0, dts) ** 2)\n", SCAN_OF_SCANS + "    return jnp.sum(h ** 2)\n"),
        ],
    ),
    (
        "scan_of_scans",
        "policy_violation/weights_in_carry.py",
        "Your gradient step peaks at 160324 bytes alive at once, 76324 over the 84000 allowed, because your scan's step carries `W`",
        "take `W` out of the carry: let the step function read it from the enclosing function (a closure)",
        [
            ("# The weights travel in the carry, so every kept carry holds a copy of W as well.\n", ""),
            (
                "@partial(jax.checkpoint, prevent_cse=False)\ndef step(carry, dt):\n    h, W = carry\n"
                "    return (h + dt * jnp.tanh(jnp.dot(h, W)), W), None\n\n\n"
                "@partial(jax.checkpoint, prevent_cse=False)\ndef block(carry, block_dts):\n"
                "    return jax.lax.scan(step, carry, block_dts)[0], None\n\n\n",
                "",
            ),
            (
                "    n = math.isqrt(dts.shape[0])\n",
                "    n = math.isqrt(dts.shape[0])\n\n"
                "    @partial(jax.checkpoint, prevent_cse=False)\n    def step(h, dt):\n"
                "        return h + dt * jnp.tanh(jnp.dot(h, W)), None\n\n"
                "    @partial(jax.checkpoint, prevent_cse=False)\n    def block(h, block_dts):\n"
                "        return jax.lax.scan(step, h, block_dts)[0], None\n\n",
            ),
            ("(h, _), _ = jax.lax.scan(block, (h0, W),", "h, _ = jax.lax.scan(block, h0,"),
        ],
    ),
    (
        "recursive_checkpoint",
        "policy_violation/whole_chain.py",
        "None of your checkpoints is inside another",
        "a chain: checkpoint its two halves, and inside each half its halves again",
        [
            (
                "    def chain(v):\n        for _ in range(depth):\n            v = jnp.sin(v)\n        return v\n\n    return jax.checkpoint(chain)(x)\n",
                CHAIN,
            )
        ],
    ),
    (
        "recursive_checkpoint",
        "policy_violation/sqrt_segments.py",
        "None of your checkpoints is inside another",
        "a chain: checkpoint its two halves, and inside each half its halves again",
        [
            (
                "    done = 0\n    while done < depth:\n        k = min(size, depth - done)\n"
                "        x = jax.checkpoint(lambda v, k=k: segment(v, k))(x)\n        done += k\n    return x\n",
                CHAIN,
            )
        ],
    ),
    (
        "memory_budget_transformer",
        "policy_violation/pairs_of_blocks.py",
        "Your gradient step peaks at 570392 bytes alive at once, 50392 over the 520000 allowed, because your jax.checkpoint (line 24) "
        "encloses 16 matrix products",
        "checkpoint smaller segments (a block or a few layers each)",
        [
            ("@jax.checkpoint\ndef two_blocks", "def two_blocks"),
            ("        h = block(h,", "        h = jax.checkpoint(block)(h,"),
        ],
    ),
    (
        "memory_budget_transformer",
        "policy_violation/whole_network.py",
        "Your gradient step peaks at 890904 bytes alive at once, 370904 over the 520000 allowed, because your jax.checkpoint (line 19) "
        "encloses 32 matrix products",
        "checkpoint smaller segments (a block or a few layers each)",
        [
            ("@jax.checkpoint\ndef network(Wq, Wk, Wv, Wo, W1, W2, x):\n", "def block(h, Wq, Wk, Wv, Wo, W1, W2):\n"),
            ("    h = x\n    for i in range(Wq.shape[0]):\n", ""),
            ("        q, k, v = h @ Wq[i], h @ Wk[i], h @ Wv[i]\n", "    q, k, v = h @ Wq, h @ Wk, h @ Wv\n"),
            ("        weights =", "    weights ="),
            ("        h = h + (weights @ v) @ Wo[i]\n", "    h = h + (weights @ v) @ Wo\n"),
            (
                "        h = h + jax.nn.gelu(h @ W1[i]) @ W2[i]\n    return h\n",
                "    return h + jax.nn.gelu(h @ W1) @ W2\n",
            ),
            (
                "    return jnp.mean((network(Wq, Wk, Wv, Wo, W1, W2, x) - y) ** 2)\n",
                "    h = x\n    for i in range(Wq.shape[0]):\n"
                "        h = jax.checkpoint(block)(h, Wq[i], Wk[i], Wv[i], Wo[i], W1[i], W2[i])\n"
                "    return jnp.mean((h - y) ** 2)\n",
            ),
        ],
    ),
    (
        "where_to_checkpoint",
        "policy_violation/everything_saveable.py",
        "Your jax.checkpoint (line 19) uses everything_saveable, where this problem requires nothing_saveable",
        "policy=jax.checkpoint_policies.nothing_saveable on that jax.checkpoint",
        [("jax.checkpoint_policies.everything_saveable", "jax.checkpoint_policies.nothing_saveable")],
    ),
    (
        "equinox_scan_layers",
        "policy_violation/python_loop.py",
        "Your eqx.filter_checkpoint (line 13) runs in a Python loop (line 12",
        "replace the Python loop with jax.lax.scan over the stacked layers, with the checkpointed function as the step",
        [
            (
                "    h = x\n    for i in range(blocks.linear.weight.shape[0]):  # unrolled: L checkpoints, residuals not stacked\n"
                "        h = apply(jax.tree_util.tree_map(lambda leaf: leaf[i], params), h)\n",
                "    h, _ = jax.lax.scan(lambda h, layer: (apply(layer, h), None), x, params)\n",
            )
        ],
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/one_per_product.py",
        "Your jax.checkpoint (line 7) uses no policy, which means nothing_saveable, and wraps only part",
        f"jax.checkpoint(f, policy={DNB}), with nothing of it outside",
        [
            (
                "def checkpoint_dot_policy(w1, w2, x):\n    matmul = jax.checkpoint(lambda a, b: a @ b)\n",
                "def f(w1, w2, x):\n    matmul = lambda a, b: a @ b  # noqa: E731\n",
            ),
            (
                "    return jnp.sum(matmul(hidden, w2) ** 2)\n",
                "    return jnp.sum(matmul(hidden, w2) ** 2)\n\n\n"
                f"def checkpoint_dot_policy(w1, w2, x):\n    return jax.checkpoint(f, policy={DNB})(w1, w2, x)\n",
            ),
        ],
    ),
    (
        "checkpoint_dot_policy",
        "policy_violation/custom_vjp_lookalike.py",
        "Your program has no jax.checkpoint: your hand-written custom_vjp (line 6)",
        "remove the custom_vjp and wrap the plain function in jax.checkpoint with policy=dots_with_no_batch_dims_saveable",
        [
            ("@jax.custom_vjp\ndef checkpoint_dot_policy(w1, w2, x):\n", "def plain(w1, w2, x):\n"),
            (
                "checkpoint_dot_policy.defvjp(_fwd, _bwd)\n",
                f"def checkpoint_dot_policy(w1, w2, x):\n    return jax.checkpoint(plain, policy={DNB})(w1, w2, x)\n",
            ),
        ],
    ),
    (
        "prevent_cse_in_scan",
        "policy_violation/no_embed_checkpoint.py",
        "Your code calls `embed` without a checkpoint at line 14 (`e = embed(We, x)`)",
        "checkpoint that call too: jax.checkpoint(embed, policy=jax.checkpoint_policies.nothing_saveable)(...) at line 14",
        [("e = embed(We, x)", "e = jax.checkpoint(embed, policy=jax.checkpoint_policies.nothing_saveable)(We, x)")],
    ),
    (
        "checkpoint_per_layer",
        "policy_violation/whole_network.py",
        "Your program has 1 jax.checkpoint(s) on the path to its output; at least 3 are required",
        "checkpoint each turn of the loop at line 7: move its body into a function, say `def turn(W, x)` returning `x`",
        [
            (
                "@jax.checkpoint\ndef three_layers",
                "def turn(W, x):\n    x = jnp.sin(W @ x)\n    return x\n\n\ndef three_layers",
            ),
            (
                "        x = jnp.sin(W @ x)\n",
                "        x = jax.checkpoint(turn, policy=jax.checkpoint_policies.nothing_saveable)(W, x)\n",
            ),
        ],
    ),
    (
        "scan_over_layers",
        "policy_violation/python_loop.py",
        "Your jax.checkpoint (line 10) runs in a Python loop (line 9",
        "replace the Python loop with jax.lax.scan over the stacked layers, with the checkpointed function as the step",
        [
            (
                "    h = x\n    for i in range(Ws.shape[0]):\n        h = layer(h, Ws[i])\n",
                "    h, _ = jax.lax.scan(lambda h, W: (layer(h, W), None), x, Ws)\n",
            )
        ],
    ),
    (
        "static_argnums_training_flag",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "`is_training` is a plain Python value: checkpointing the whole function, pass static_argnums=(2,)",
        [
            ("import jax\n", "from functools import partial\n\nimport jax\n"),
            (
                "def masked_block(",
                "@partial(jax.checkpoint, " + POLICY + ", static_argnums=(2,))\ndef masked_block(",
            ),
        ],
    ),
    (
        "equinox_filter_checkpoint",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint, so reverse mode saves every intermediate value its backward pass "
        "needs; this problem requires eqx.filter_checkpoint with policy=dots_with_no_batch_dims_saveable.",
        "wrap the computation in eqx.filter_checkpoint(..., " + POLICY + ")",
        [
            ("import jax\n", "import equinox as eqx\nimport jax\n"),
            (
                "jax.vmap(model)(x)",
                "eqx.filter_checkpoint(lambda m, x: jax.vmap(m)(x), " + POLICY + ")(model, x)",
            ),
        ],
    ),
]


# A policy of one's own for write_a_policy, as its advice describes: the result's size, read from the
# operation's input types and dimension numbers (batch axes once), against the statement's limit.
OWN_SMALL_DOTS = (
    "def small_dots(prim, *types, **params):\n"
    "    if prim.name != 'dot_general':\n        return False\n"
    "    lhs, rhs = types\n"
    "    (lc, rc), (lb, rb) = params['dimension_numbers']\n"
    "    out = [n for i, n in enumerate(lhs.shape) if i not in lc]\n"
    "    out += [n for i, n in enumerate(rhs.shape) if i not in rc and i not in rb]\n"
    "    return math.prod(out) <= 256\n"
)
FOLLOWED += [
    (
        "write_a_policy",
        "policy_violation/forgot_batch_axes.py",
        "On a hidden case, your policy small_dots (line 14) keeps the result of a matrix product with 3 axes, "
        "which the reference solution recomputes",
        "have your policy return False for that value on larger inputs, as the reference solution's does: a "
        "matrix product's result has every axis its two sides do not contract, its batch axes too",
        [("return math.prod(lhs_free + rhs_free)", "return math.prod(batch + lhs_free + rhs_free)")],
    ),
    (
        "write_a_policy",
        "policy_violation/library_dots.py",
        "Your small_dots is jax.checkpoint_policies.dots_saveable, a policy of JAX's that decides by the "
        "operation alone, never by the size of its result",
        "write small_dots as your own function, def small_dots(prim, *types, **params), that returns True only "
        "for the values the statement says to keep",
        [("import jax\n\nsmall_dots = jax.checkpoint_policies.dots_saveable\n", "import math\n\n\n" + OWN_SMALL_DOTS)],
    ),
    (
        "write_a_policy",
        "policy_violation/input_size.py",
        "Your policy small_dots (line 4) recomputes the result of a matrix product of shape (16, 4), 64 elements",
        "the types your policy is given are the operation's inputs, so work out its result's shape from them",
        [
            (
                'def small_dots(prim, *types, **params):\n    return prim.name == "dot_general" and '
                "math.prod(types[0].shape) <= 256\n",
                OWN_SMALL_DOTS,
            )
        ],
    ),
    (
        "write_a_policy",
        "policy_violation/never.py",
        "Your policy small_dots (line 1) keeps nothing: it answers False for every value",
        "have your policy return True for the values the reference solution keeps",
        [("def small_dots(prim, *types, **params):\n    return False\n", "import math\n\n\n" + OWN_SMALL_DOTS)],
    ),
    (
        "write_a_policy",
        "policy_violation/strict_boundary.py",
        "Your policy small_dots (line 14) recomputes the result of a matrix product of shape (8, 32), 256 elements",
        "have your policy return True for the result of a matrix product of shape (8, 32), 256 elements",
        [("< _LIMIT", "<= _LIMIT")],
    ),
    (
        "save_from_both_policies",
        "policy_violation/two_checkpoints.py",
        "Your 2 jax.checkpoints (lines 14 and 16) each use one of the two policies this problem combines",
        "one jax.checkpoint around the whole computation, with policy=jax.checkpoint_policies.save_from_both_policies("
        "dots_with_no_batch_dims_saveable, save_only_these_names('gate')), in place of your 2",
        [
            (
                '    a, gate = jax.checkpoint(first, policy=cp.save_only_these_names("gate"))(w1, x)\n'
                "    tail = jax.checkpoint(lambda g, a, w2: jnp.sum(jnp.sin((g * a) @ w2)), "
                "policy=cp.dots_with_no_batch_dims_saveable)\n"
                "    return tail(gate, a, w2)\n",
                "    def whole(w1, w2, x):\n        a, gate = first(w1, x)\n        return jnp.sum(jnp.sin((gate * a) @ w2))\n\n"
                f"    return jax.checkpoint(whole, policy={BOTH})(w1, w2, x)\n",
            )
        ],
    ),
    (
        "static_argnums_training_flag",
        "policy_violation/mask_outside.py",
        "Part of the computation lies outside your jax.checkpoint (line 13): line 15",
        "move those lines into the function you checkpoint, along with the `if is_training:` line; `is_training` is "
        "a plain Python value, so pass it to that function as well and mark it static",
        [
            (
                "dots_with_no_batch_dims_saveable)\ndef _layer(W, x):\n",
                "dots_with_no_batch_dims_saveable, static_argnums=(2,))\ndef _layer(W, x, is_training):\n",
            ),
            ("    return jnp.tanh(x @ W)\n", "    a = jnp.tanh(x @ W)\n"),
            ("\n\ndef masked_block(W, x, is_training):\n    a = _layer(W, x)\n", ""),
            (
                "    return jnp.sum(a ** 2)\n",
                "    return jnp.sum(a ** 2)\n\n\ndef masked_block(W, x, is_training):\n    return _layer(W, x, is_training)\n",
            ),
        ],
    ),
    (
        "equinox_filter_checkpoint",
        "policy_violation/first_layer_only.py",
        "Part of the computation lies outside your eqx.filter_checkpoint (line 10): line 12",
        "`first` is not a function of yours, so nothing can move into it: write one that runs the whole model on "
        "the inputs (`first` and the layers that line applies after it), checkpoint that function instead, "
        "eqx.filter_checkpoint(that_function, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable), "
        "and compute the loss from what it returns",
        [
            (
                "    hidden = jax.vmap(eqx.filter_checkpoint(first, policy=policy))(x)\n",
                "\n    def both_layers(model, x):\n        hidden = jax.vmap(first)(x)\n",
            ),
            (
                "    return jnp.mean(jax.vmap(second)(model.activation(hidden)) ** 2)\n",
                "        return jax.vmap(second)(model.activation(hidden))\n\n"
                "    return jnp.mean(eqx.filter_checkpoint(both_layers, policy=policy)(model, x) ** 2)\n",
            ),
        ],
    ),
    (
        "fit_the_budget",
        "policy_violation/nested_segments.py",
        "Your gradient step needs 57395335 FLOPs, 9395335 over the 48000000 allowed, because your jax.checkpoint sits "
        "inside another one",
        "remove the outer jax.checkpoint (line 10) and keep the inner one",
        [("@jax.checkpoint\ndef segment", "def segment")],
    ),
]


@pytest.mark.parametrize("slug, relative, cause, advice, edits", FOLLOWED, ids=[f"{f[0]}/{f[1]}" for f in FOLLOWED])
def test_the_cause_is_told_first_and_its_advice_followed_is_accepted(slug, relative, cause, advice, edits):
    followed = _told_then_followed(slug, relative, cause, advice, edits)
    assert followed.verdict == verdicts.ACCEPTED, followed.message


def _told_then_followed(slug: str, relative: str, cause: str, advice: str, edits):
    """What the packaged file is told, from the bank's own grading (tests/bank/ runs on one process:
    the other bank tests read the same reports), checked; then the file with its advice followed,
    graded by the same zygote."""
    report = graded(slug, "jax_remat")[f"submissions/{relative}"][1]
    assert report.cause.startswith(cause), report.cause
    assert report.advice.startswith("Try: ") and advice in report.advice, report.advice
    problem = load_problem(ROOT / "problems" / slug)
    source = (problem.path / "submissions" / relative).read_text()
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new, 1)
    return graded_source(problem, source, "jax_remat")


# A file with a second mistake besides the one it is told first: no single edit turns it accepted, so
# its advice followed must remove the cause it was told, and the next grading tells the next one.
# (problem, packaged file, the cause's opening, a phrase of its advice, the edits, the next verdict and cause)
REMOVED = [
    (
        "write_a_policy",
        "runtime_error/returns_string.py",
        "Your policy returns something other than True or False",
        "return a bool from your policy (True to save the value, False to recompute it)",
        [('return "yes" if prim.name == "dot_general" else "no"', 'return prim.name == "dot_general"')],
        verdicts.POLICY_VIOLATION,
        "On a hidden case, your policy small_dots (line 1) keeps the results of 5 matrix products",
    ),
]


@pytest.mark.parametrize(
    "slug, relative, cause, advice, edits, verdict, next_cause", REMOVED, ids=[f"{f[0]}/{f[1]}" for f in REMOVED]
)
def test_advice_followed_removes_the_cause_it_was_told(slug, relative, cause, advice, edits, verdict, next_cause):
    followed = _told_then_followed(slug, relative, cause, advice, edits)
    assert (followed.verdict, followed.cause.startswith(next_cause)) == (verdict, True), followed.cause
