"""Legitimate (issue 10, item 7): the named block is jitted as a whole inside the checkpoint, so
the value kept by name comes out of a jitted call.
"""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


@jax.jit
def block(w1, w2, x):
    hidden = checkpoint_name(jnp.tanh(x @ w1), "hidden")
    return jnp.sum(jnp.sin(hidden @ w2))


def named_block(w1, w2, x):
    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    return jax.checkpoint(block, policy=policy)(w1, w2, x)
