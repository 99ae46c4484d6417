"""Legitimate (issue 10, item 7): ``jax.checkpoint`` over a jitted function. The values the policy
keeps come out of the jitted call, where JAX puts no mark on them; the judge of f4a8146 then said
the same products were both "saved by your code" and "recomputed".
"""
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


@jax.jit
def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
