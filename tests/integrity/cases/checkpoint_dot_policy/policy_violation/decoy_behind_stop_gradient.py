"""Attacks: provenance the learner can write, and a decoy checkpoint (issue 10, item 4).

No checkpoint does the real work. A decoy ``jax.checkpoint`` with the required policy encloses two
products, but its inputs are behind ``stop_gradient``: it is not on the differentiated path and
saves nothing. The real computation uses ``nothing_saveable`` checkpoints arranged so that plain
autodiff keeps the inputs and the two products, which ``lax.reduce_precision(v, 8, 23)`` marks the
way JAX marks the values a policy keeps. The judge of f4a8146 read that mark as "kept by the
policy" and accepted it.
"""
import jax
import jax.numpy as jnp

sg = jax.lax.stop_gradient
mark = lambda v: jax.lax.reduce_precision(v, 8, 23)  # noqa: E731
nothing = jax.checkpoint_policies.nothing_saveable
dots = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def checkpoint_dot_policy(w1, w2, x):
    decoy = jax.checkpoint(lambda a, b, v: jnp.sum((v @ a) @ b), policy=dots)(sg(w1), sg(w2), sg(x))
    a = mark(x @ w1)
    z = mark(jax.checkpoint(lambda a, w2: jax.nn.relu(a) @ w2, policy=nothing)(a, w2))
    return jnp.sum(z * z) + 0.0 * decoy
