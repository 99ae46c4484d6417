"""Attacks: a decoy checkpoint on the differentiated path (issue 10, item 4).

The decoy with the required policy is on the path (its result is added and subtracted, so JAX
differentiates it and it saves the two products, exactly the reference's values), but the
output's gradient really comes from a ``nothing_saveable`` checkpoint that recomputes both
products. Residual types, bytes and even provenance match the reference; what does not is that
the computation the problem names runs outside the required checkpoint.
"""
import jax
import jax.numpy as jnp

nothing = jax.checkpoint_policies.nothing_saveable
dots = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    decoy = jax.checkpoint(pipeline, policy=dots)(w1, w2, x)
    return jax.checkpoint(pipeline, policy=nothing)(w1, w2, x) + (decoy - decoy)
