"""Legitimate (issue 10, item 7): nested checkpoints with the same policy. The inner one changes
nothing; the judge of f4a8146 lost the mark of the values kept inside it.
"""
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def hidden(w1, x):
    return jax.nn.relu(x @ w1)


def pipeline(w1, w2, x):
    h = jax.checkpoint(hidden, policy=policy)(w1, x)
    return jnp.sum((h @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
