"""Legitimate: a correct solution beside a decorated helper that nothing calls (an earlier attempt
left in the file). Its checkpoint is never traced, so it is not judged.
"""
import jax
import jax.numpy as jnp


@jax.checkpoint
def first_attempt(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(_pipeline, policy=policy)(w1, w2, x)
