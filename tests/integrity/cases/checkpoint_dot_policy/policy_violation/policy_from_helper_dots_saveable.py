"""Attacks: a policy hidden behind a helper. The helper returns dots_saveable, which saves the very
same values as the required policy on this problem: only the source can tell, and the reader
follows the helper's return to say which policy it is.
"""
import jax
import jax.numpy as jnp


def _choose_policy():
    return jax.checkpoint_policies.dots_saveable


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(_pipeline, policy=_choose_policy())(w1, w2, x)
