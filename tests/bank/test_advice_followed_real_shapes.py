"""The advice followed for the problems at a real model's sizes (a case of each is figures only):
each packaged wrong submission is told its cause and one "Try:", and the change the advice names,
made to the file as a learner would make it, turns it accepted, or tells a strictly later problem.

`test_advice_followed_every_file`'s completeness test counts these files through ``FOLLOWED``,
which is `test_advice_followed`'s list with this module's own appended."""

import pytest

from judge.data import verdicts
from tests.bank import test_advice_followed as base
from tests.bank.test_advice_followed import CHAIN, REMOVED, _told_then_followed

__all__ = ["CHAIN", "FOLLOWED", "REMOVED", "_told_then_followed"]

FORMULA = "compare each step of yours with the statement's formula"
ANOTHER_VALUE = "Your function computes another value than the statement's"
LLAMA_POLICY = "jax.checkpoint_policies.save_only_these_names('gate', 'up')"

# (problem, packaged file, the cause's opening, a phrase of its advice, the edits: (old, new) pairs)
REAL_ACCEPTED = [
    (
        "llama_swiglu_mlp",
        "policy_violation/everything_saveable.py",
        "Your jax.checkpoint (line 12) uses everything_saveable",
        f"policy={LLAMA_POLICY} on that jax.checkpoint",
        [("jax.checkpoint_policies.everything_saveable", LLAMA_POLICY)],
    ),
    (
        "llama_swiglu_mlp",
        "policy_violation/named_after_silu.py",
        "Your label 'gate' (line 7) is on the silu",
        'put it on the matrix product at line 7, as checkpoint_name(x @ w_gate, "gate")',
        [('checkpoint_name(jax.nn.silu(x @ w_gate), "gate")', 'jax.nn.silu(checkpoint_name(x @ w_gate, "gate"))')],
    ),
    (
        "llama_swiglu_mlp",
        "policy_violation/names_misspelled.py",
        "Your code labels these values 'gate_proj' at line 6",
        'rename your labels to the names the policy saves: checkpoint_name(x @ w_gate, "gate") at line 6 and '
        'checkpoint_name(x @ w_up, "up") at line 7',
        [('"gate_proj"', '"gate"'), ('"up_proj"', '"up"')],
    ),
    (
        "llama_swiglu_mlp",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        f"wrap the computation in jax.checkpoint(..., policy={LLAMA_POLICY})",
        [
            ("def swiglu_mlp(w_gate, w_up, w_down, x):\n", "def block(w_gate, w_up, w_down, x):\n"),
            (
                "    return x + (jax.nn.silu(gate) * up) @ w_down\n",
                "    return x + (jax.nn.silu(gate) * up) @ w_down\n\n\n"
                "def swiglu_mlp(w_gate, w_up, w_down, x):\n"
                f"    return jax.checkpoint(block, policy={LLAMA_POLICY})(w_gate, w_up, w_down, x)\n",
            ),
        ],
    ),
    (
        "llama_swiglu_mlp",
        "policy_violation/projections_outside.py",
        "Part of the computation lies outside your jax.checkpoint: line 10",
        "move those lines into the function you checkpoint, and pass it the inputs they read",
        [
            (
                "def activation(gate, up, w_down, x):\n",
                "def activation(w_gate, w_up, w_down, x):\n"
                '    gate = checkpoint_name(x @ w_gate, "gate")\n'
                '    up = checkpoint_name(x @ w_up, "up")\n',
            ),
            (
                '    gate = checkpoint_name(x @ w_gate, "gate")\n    up = checkpoint_name(x @ w_up, "up")\n    policy',
                "    policy",
            ),
            (
                "(activation, policy=policy)(gate, up, w_down, x)",
                "(activation, policy=policy)(w_gate, w_up, w_down, x)",
            ),
        ],
    ),
    (
        "llama_swiglu_mlp",
        "wrong_answer/sigmoid_gate.py",
        ANOTHER_VALUE,
        FORMULA,
        [("(jax.nn.sigmoid(gate) * up)", "(jax.nn.silu(gate) * up)")],
    ),
]

GPT2_NAMES = "save_only_these_names('context', 'fc', 'k', 'q', 'v')"
GPT2_ACCEPTED = [
    (
        "gpt2_block_names",
        "policy_violation/context_after_projection.py",
        "Your label 'context' (line 29) is on the matrix product",
        'put it on the reshape at line 29, as checkpoint_name(heads_out.transpose(1, 0, 2).reshape(x.shape), "context")',
        [
            (
                'checkpoint_name(heads_out.transpose(1, 0, 2).reshape(x.shape) @ Wo, "context")',
                'checkpoint_name(heads_out.transpose(1, 0, 2).reshape(x.shape), "context") @ Wo',
            )
        ],
    ),
    (
        "gpt2_block_names",
        "policy_violation/keeps_attention_weights.py",
        "Your jax.checkpoint (line 36) uses save_only_these_names('context', 'fc', 'k', 'q', 'v', 'weights')",
        f"policy=jax.checkpoint_policies.{GPT2_NAMES} on that jax.checkpoint",
        [
            (
                "jax.checkpoint(block, policy=keep)",
                f"jax.checkpoint(block, policy=jax.checkpoint_policies.{GPT2_NAMES})",
            )
        ],
    ),
    (
        "gpt2_block_names",
        "policy_violation/output_outside.py",
        "Part of the computation lies outside your jax.checkpoint (line 34): line 36",
        "move that line into the function you checkpoint",
        [
            ("def block(Wq, Wk, Wv, Wo, W_fc, x):", "def block(Wq, Wk, Wv, Wo, W_fc, W_proj, x):"),
            (
                '        return h, checkpoint_name(layer_norm(h) @ W_fc, "fc")\n',
                '        fc = checkpoint_name(layer_norm(h) @ W_fc, "fc")\n        return h + jax.nn.gelu(fc) @ W_proj\n',
            ),
            (
                "    h, fc = jax.checkpoint(block, policy=keep)(Wq, Wk, Wv, Wo, W_fc, x)\n"
                "    # the last projection, after the checkpoint\n"
                "    return h + jax.nn.gelu(fc) @ W_proj\n",
                "    return jax.checkpoint(block, policy=keep)(Wq, Wk, Wv, Wo, W_fc, W_proj, x)\n",
            ),
        ],
    ),
    (
        "gpt2_block_names",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "checkpointing the whole function, pass static_argnums=(7,)",
        [
            ("import math\n", "import math\nfrom functools import partial\n"),
            (
                "def gpt2_block(",
                f"@partial(jax.checkpoint, policy=jax.checkpoint_policies.{GPT2_NAMES}, static_argnums=(7,))\n"
                "def gpt2_block(",
            ),
        ],
    ),
    (
        "gpt2_block_names",
        "wrong_answer/heads_without_transpose.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            ("z.reshape(heads, T, d // heads) for z", "split_heads(z, heads) for z"),
            ("heads_out.reshape(T, d)", "heads_out.transpose(1, 0, 2).reshape(T, d)"),
        ],
    ),
    (
        "gpt2_block_names",
        "wrong_answer/no_causal_mask.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            (
                "        heads_out = jax.nn.softmax(",
                "        T = x.shape[0]\n"
                "        scores = jnp.where(jnp.tril(jnp.ones((T, T), bool)), scores, -jnp.inf)\n"
                "        heads_out = jax.nn.softmax(",
            )
        ],
    ),
]

ACCUMULATION_ACCEPTED = [
    (
        "microbatch_accumulation",
        "policy_violation/dots_saved_per_microbatch.py",
        "Your gradient step peaks at 1644167196 bytes alive at once, 844167196 over the 800000000 allowed, because "
        "your jax.checkpoint (line 15) uses dots_with_no_batch_dims_saveable",
        "remove policy=dots_with_no_batch_dims_saveable (line 15) and keep the checkpoint itself",
        [("jax.checkpoint(microbatch_loss, policy=keep_dots)", "jax.checkpoint(microbatch_loss)")],
    ),
    (
        "microbatch_accumulation",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        "checkpoint the step you give to jax.lax.scan at line 11: jax.lax.scan(jax.checkpoint(step), ...)",
        [("jax.lax.scan(step,", "jax.lax.scan(jax.checkpoint(step),")],
    ),
    (
        "microbatch_accumulation",
        "policy_violation/only_the_first_layer.py",
        "Your gradient step peaks at 1644167196 bytes alive at once, 844167196 over the 800000000 allowed, because "
        "line 13 (`return total + jnp.mean((h @ W2 - ym) ** 2), None`) runs outside every checkpoint",
        "move that line into the function you checkpoint",
        [
            (
                "def first_layer(W1, xm):\n    return jax.nn.gelu(xm @ W1)\n",
                "def first_layer(W1, W2, xm, ym):\n    h = jax.nn.gelu(xm @ W1)\n    return jnp.mean((h @ W2 - ym) ** 2)\n",
            ),
            (
                "        h = jax.checkpoint(first_layer)(W1, xm)\n        return total + jnp.mean((h @ W2 - ym) ** 2), None\n",
                "        return total + jax.checkpoint(first_layer)(W1, W2, xm, ym), None\n",
            ),
        ],
    ),
    (
        "microbatch_accumulation",
        "policy_violation/whole_scan.py",
        "Your jax.checkpoint wraps the whole jax.lax.scan, not the step it runs",
        "jax.lax.scan(jax.checkpoint(step), ...), with no checkpoint around the scan itself",
        [("@jax.checkpoint\n", ""), ("jax.lax.scan(step,", "jax.lax.scan(jax.checkpoint(step),")],
    ),
    (
        "microbatch_accumulation",
        "wrong_answer/summed_not_averaged.py",
        ANOTHER_VALUE,
        FORMULA,
        [("return total  # the sum of the microbatches' losses", "return total / x.shape[0]")],
    ),
]

LONG_CONTEXT_POLICY = (
    "jax.checkpoint_policies.save_and_offload_only_these_names(names_which_can_be_saved=['k', 'v'], "
    "names_which_can_be_offloaded=['context', 'q'], offload_src='device', offload_dst='pinned_host')"
)
LONG_CONTEXT_LISTS = (
    "jax.checkpoint_policies.save_and_offload_only_these_names(\n"
    "        names_which_can_be_saved={saved},\n"
    "        names_which_can_be_offloaded={offloaded},\n"
    '        offload_src="device",\n'
    '        offload_dst="pinned_host",\n'
    "    )"
)
# The lists told apart by their names, and the advice: the required lists in the learner's policy.
OFFLOAD_WRONG_LISTS = (
    "Your jax.checkpoint (line 35) uses save_and_offload_only_these_names with names in the wrong lists: your "
    "policy offloads `k` and `v`, which the required policy keeps on the device"
)
LONG_CONTEXT_LISTS_ADVICE = "names_which_can_be_saved=['k', 'v'], names_which_can_be_offloaded=['context', 'q']"
OFFLOAD_ACCEPTED = [
    (
        "long_context_offload",
        "policy_violation/all_on_device.py",
        "Your jax.checkpoint (line 30) uses save_only_these_names('context', 'k', 'q', 'v')",
        f"policy={LONG_CONTEXT_POLICY} on that jax.checkpoint",
        [('jax.checkpoint_policies.save_only_these_names("q", "k", "v", "context")', LONG_CONTEXT_POLICY)],
    ),
    (
        "long_context_offload",
        "policy_violation/lists_swapped.py",
        f"{OFFLOAD_WRONG_LISTS}, and keeps `context` and `q` on the device, which it offloads to the host",
        f"{LONG_CONTEXT_LISTS_ADVICE} in your save_and_offload_only_these_names (line 29)",
        [(LONG_CONTEXT_LISTS.format(saved='["q", "context"]', offloaded='["k", "v"]'), LONG_CONTEXT_POLICY)],
    ),
    (
        "long_context_offload",
        "policy_violation/offload_every_name.py",
        f"{OFFLOAD_WRONG_LISTS}.",
        f"{LONG_CONTEXT_LISTS_ADVICE} in your save_and_offload_only_these_names (line 29)",
        [(LONG_CONTEXT_LISTS.format(saved="[]", offloaded='["q", "k", "v", "context"]'), LONG_CONTEXT_POLICY)],
    ),
    (
        "long_context_offload",
        "policy_violation/offload_every_product.py",
        "Your jax.checkpoint (line 31) uses offload_dot_with_no_batch_dims('device', 'pinned_host')",
        f"policy={LONG_CONTEXT_POLICY} on that jax.checkpoint",
        [('jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")', LONG_CONTEXT_POLICY)],
    ),
    (
        "long_context_offload",
        "runtime_error/memories_swapped.py",
        "Your offloading policy moves saved values the wrong way (line 31)",
        "Try: offload_src='device', offload_dst='pinned_host' in your save_and_offload_only_these_names at line 31",
        [
            (
                'offload_src="pinned_host",\n        offload_dst="device",',
                'offload_src="device",\n        offload_dst="pinned_host",',
            )
        ],
    ),
    (
        "long_context_offload",
        "wrong_answer/unscaled_scores.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            ("import jax\n", "import math\n\nimport jax\n"),
            ("qh, k)  # the scale 1 / sqrt(c) forgotten", "qh, k) / math.sqrt(c)"),
        ],
    ),
]

PRESET = "jax.checkpoint_policies.save_only_these_names('key_proj', 'query_proj', 'value_proj')"
PRESET_ACCEPTED = [
    (
        "named_policies_at_scale",
        "policy_violation/all_but_these.py",
        "Your jax.checkpoint uses save_any_names_but_these('key_proj', 'query_proj', 'value_proj')",
        f"policy={PRESET} on that jax.checkpoint",
        [
            (
                'jax.checkpoint_policies.save_any_names_but_these("query_proj", "key_proj", "value_proj")',
                PRESET,
            )
        ],
    ),
    (
        "named_policies_at_scale",
        "policy_violation/attention_only.py",
        "Part of the computation lies outside your jax.checkpoint (line 32): line 33 (`up = checkpoint_name("
        'rms_norm(h) @ w_up, "mlp_up")`); line 34',
        "move those lines into the function you checkpoint",
        [
            ("    def attention(h, wq, wk, wv, wo):", "    def attention(h, wq, wk, wv, wo, w_up, w_down):"),
            (
                '        return h + checkpoint_name(context @ wo, "out_proj")\n',
                '        h = h + checkpoint_name(context @ wo, "out_proj")\n'
                '        up = checkpoint_name(rms_norm(h) @ w_up, "mlp_up")\n'
                '        return h + checkpoint_name(jax.nn.gelu(up) @ w_down, "mlp_down")\n',
            ),
            (
                "        h = jax.checkpoint(attention, policy=SAVE_QKV_PROJ)(h, wq, wk, wv, wo)\n"
                '        up = checkpoint_name(rms_norm(h) @ w_up, "mlp_up")\n'
                '        return h + checkpoint_name(jax.nn.gelu(up) @ w_down, "mlp_down"), None\n',
                "        return jax.checkpoint(attention, policy=SAVE_QKV_PROJ)(h, wq, wk, wv, wo, w_up, w_down), None\n",
            ),
        ],
    ),
    (
        "named_policies_at_scale",
        "policy_violation/labels_of_another_codebase.py",
        "Your code labels these values 'q_proj' at line 19",
        'checkpoint_name(a @ wq, "query_proj") at line 19, checkpoint_name(a @ wk, "key_proj") at line 20 and '
        'checkpoint_name(a @ wv, "value_proj") at line 21',
        [('"q_proj"', '"query_proj"'), ('"k_proj"', '"key_proj"'), ('"v_proj"', '"value_proj"')],
    ),
    (
        "named_policies_at_scale",
        "policy_violation/every_projection.py",
        "Your jax.checkpoint uses dots_with_no_batch_dims_saveable",
        f"policy={PRESET} on that jax.checkpoint",
        [("jax.checkpoint_policies.dots_with_no_batch_dims_saveable", PRESET)],
    ),
    (
        "named_policies_at_scale",
        "policy_violation/no_checkpoint.py",
        "Your program has no jax.checkpoint",
        f"checkpoint the step you give to jax.lax.scan at line 31: jax.lax.scan(jax.checkpoint(layer, policy={PRESET})",
        [("jax.lax.scan(layer,", f"jax.lax.scan(jax.checkpoint(layer, policy={PRESET}),")],
    ),
    (
        "named_policies_at_scale",
        "policy_violation/whole_scan.py",
        "Your jax.checkpoint (line 39) wraps the whole jax.lax.scan, not the step it runs",
        "with no checkpoint around the scan itself",
        [
            ("    @partial(jax.checkpoint, policy=keep)\n", ""),
            ("jax.lax.scan(layer, x, weights)", "jax.lax.scan(jax.checkpoint(layer, policy=keep), x, weights)"),
        ],
    ),
    (
        "named_policies_at_scale",
        "wrong_answer/mlp_without_residual.py",
        ANOTHER_VALUE,
        FORMULA,
        [
            (
                '        return checkpoint_name(jax.nn.gelu(up) @ w_down, "mlp_down"), None',
                '        return h + checkpoint_name(jax.nn.gelu(up) @ w_down, "mlp_down"), None',
            )
        ],
    ),
]

EVERY_BLOCK = "h, _ = jax.lax.scan(jax.checkpoint(block), x, (w_qkv, w_o, w_in, w_out))"
EXPLORER_ACCEPTED = [
    (
        "budget_with_the_explorer",
        "policy_violation/dots_in_every_block.py",
        "Your gradient step peaks at 16596926502 bytes alive at once, 12596926502 over the 4000000000 allowed, "
        "because your jax.checkpoint (line 29) uses dots_saveable",
        "remove policy=jax.checkpoint_policies.dots_saveable (line 29) and keep the checkpoint itself",
        [("jax.checkpoint(block, policy=jax.checkpoint_policies.dots_saveable)", "jax.checkpoint(block)")],
    ),
    (
        "budget_with_the_explorer",
        "policy_violation/nested_segments.py",
        "Your gradient step needs 8093217128695 FLOPs, 1093217128695 over the 7000000000000 allowed, "
        "because your jax.checkpoint sits inside another one",
        "remove the outer jax.checkpoint (line 31) and keep the inner one",
        [("    @jax.checkpoint\n    def segment", "    def segment")],
    ),
    (
        "budget_with_the_explorer",
        "policy_violation/offload_products.py",
        "Your jax.checkpoint (line 34) wraps the whole jax.lax.scan, not the step it runs",
        "jax.lax.scan(jax.checkpoint(block), ...), with no checkpoint around the scan itself",
        [
            ("jax.lax.scan(block, x,", "jax.lax.scan(jax.checkpoint(block), x,"),
            ("jax.checkpoint(stack, policy=to_host)(w_qkv", "stack(w_qkv"),
        ],
    ),
    (
        "budget_with_the_explorer",
        "policy_violation/segments_of_two.py",
        "Your gradient step peaks at 8088256558 bytes alive at once, 4088256558 over the 4000000000 allowed, "
        "because your jax.checkpoint wraps segments of 2 blocks (line 34",
        "checkpoint every block instead of segments of several: jax.lax.scan(jax.checkpoint(block), ...)",
        [
            (
                "    parts = jax.tree.map(lambda a: a.reshape(-1, 2, *a.shape[1:]), (w_qkv, w_o, w_in, w_out))\n"
                "    h, _ = jax.lax.scan(segment, x, parts)\n",
                f"    {EVERY_BLOCK}\n",
            )
        ],
    ),
    (
        "budget_with_the_explorer",
        "policy_violation/whole_function.py",
        "Your jax.checkpoint wraps the whole jax.lax.scan, not the step it runs",
        "jax.lax.scan(jax.checkpoint(block), ...), with no checkpoint around the scan itself",
        [
            ("@jax.checkpoint\ndef gpt2_loss", "def gpt2_loss"),
            ("jax.lax.scan(block,", "jax.lax.scan(jax.checkpoint(block),"),
        ],
    ),
    (
        "budget_with_the_explorer",
        "wrong_answer/blocks_reversed.py",
        ANOTHER_VALUE,
        FORMULA,
        [(", reverse=True)", ")")],
    ),
]

TURNED_ACCEPTED = (
    REAL_ACCEPTED + GPT2_ACCEPTED + ACCUMULATION_ACCEPTED + OFFLOAD_ACCEPTED + PRESET_ACCEPTED + EXPLORER_ACCEPTED
)
FOLLOWED = base.FOLLOWED + [f[:5] for f in TURNED_ACCEPTED]


@pytest.mark.parametrize(
    "slug, relative, cause, advice, edits",
    TURNED_ACCEPTED,
    ids=[f"{f[0]}/{f[1]}" for f in TURNED_ACCEPTED],
)
def test_the_advice_followed_is_accepted(slug, relative, cause, advice, edits):
    followed = _told_then_followed(slug, relative, cause, advice, edits)
    assert followed.verdict == verdicts.ACCEPTED, followed.message
