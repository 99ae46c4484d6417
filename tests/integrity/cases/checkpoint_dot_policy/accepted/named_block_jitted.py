"""Legitimate (issue 10, item 7): each named block of the pipeline jitted on its own, inside the
checkpoint, and the whole entry point jitted too.
"""
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


@jax.jit
def layer(w, h):
    return h @ w


@jax.jit
def loss(z):
    return jnp.sum(z * z)


def pipeline(w1, w2, x):
    return loss(layer(w2, jax.nn.relu(layer(w1, x))))


@jax.jit
def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
