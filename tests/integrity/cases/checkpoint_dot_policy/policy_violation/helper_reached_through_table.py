"""Attacks: the reading of which code runs. The checkpoint with the wrong policy (dots_saveable,
which saves the very same values here, so only the source can tell) sits in a helper that the
entry point reaches only through a table of functions, while a decoy with the required policy
sits in a function nothing calls. A reader that judged only what looks called, or only the first
site, would accept it.
"""
import jax
import jax.numpy as jnp


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


def decoy(w1, w2, x):
    return jax.checkpoint(_pipeline, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(w1, w2, x)


def _real(w1, w2, x):
    return jax.checkpoint(_pipeline, policy=jax.checkpoint_policies.dots_saveable)(w1, w2, x)


STEPS = {"real": _real}


def checkpoint_dot_policy(w1, w2, x):
    return STEPS["real"](w1, w2, x)
