"""Attacks: custom derivatives treated alike (issue 10, item 4).

A ``jax.custom_jvp`` inside the required checkpoint, its rule given with ``defjvps``: the
rematerialization still happens, but how the derivative of the inner step is computed is the
submission's, not JAX's. The judge of f4a8146 checked only ``custom_vjp``.
"""
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


@jax.custom_jvp
def square_sum(z):
    return jnp.sum(z ** 2)


square_sum.defjvps(lambda t, ans, z: jnp.sum(2.0 * z * t))


def pipeline(w1, w2, x):
    return square_sum(jax.nn.relu(x @ w1) @ w2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
