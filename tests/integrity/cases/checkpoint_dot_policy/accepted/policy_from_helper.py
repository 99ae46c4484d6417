"""Legitimate: the policy comes from a helper that returns JAX's own
dots_with_no_batch_dims_saveable. The source reader once called it "a policy your code builds".
"""
import jax
import jax.numpy as jnp


def _choose_policy():
    return jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(_pipeline, policy=_choose_policy())(w1, w2, x)
