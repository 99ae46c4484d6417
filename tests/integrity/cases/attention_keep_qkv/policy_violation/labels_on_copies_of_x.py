"""Attacks: a rule decided by a label (issue 21, item 2).

The names q, k and v sit on three copies of ``x`` rather than on the projections, so the required
policy keeps ``x`` three times and every projection is recomputed in the backward pass. Names and
types alone matched the reference (accepted before issue 21); the values the verifier's run keeps
on the hidden inputs are not the projections, and that decides.
"""
import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def _attention(x, Wq, Wk, Wv, Wo):
    q = checkpoint_name(x + 0.0, "q") @ Wq
    k = checkpoint_name(x * 1.0, "k") @ Wk
    v = checkpoint_name(x - 0.0, "v") @ Wv
    weights = jax.nn.softmax(q @ k.T / math.sqrt(x.shape[-1]), axis=-1)
    return jnp.sum(jnp.tanh((weights @ v) @ Wo))


def attention_block(x, Wq, Wk, Wv, Wo):
    policy = jax.checkpoint_policies.save_only_these_names("q", "k", "v")
    return jax.checkpoint(_attention, policy=policy)(x, Wq, Wk, Wv, Wo)
