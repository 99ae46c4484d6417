"""Attacks: policies known by identity (issue 10, item 3; issue 21: the API from the source).

The names policy built from its class with a frozenset of exactly ``str``, as JAX itself builds
it. It saves the very values the required ``save_only_these_names("hidden")`` saves, but the source
builds its own policy object instead of calling ``jax.checkpoint_policies``: read from the source
(which the parent parses and never runs), it is the learner's own policy, as a subclass or a
forged field would be. Issue 10 accepted it, judged by the policy object's identity in the child.
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
