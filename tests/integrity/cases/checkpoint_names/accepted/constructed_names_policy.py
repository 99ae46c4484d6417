"""Legitimate (issue 10, item 3 must not refuse it): the names policy built from its class with a
frozenset of exactly ``str``, as JAX itself builds it.
"""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

Names = type(jax.checkpoint_policies.save_only_these_names("unused"))


def block(w1, w2, x):
    hidden = checkpoint_name(jnp.tanh(x @ w1), "hidden")
    return jnp.sum(jnp.sin(hidden @ w2))


def named_block(w1, w2, x):
    return jax.checkpoint(block, policy=Names(frozenset({"hidden"})))(w1, w2, x)
