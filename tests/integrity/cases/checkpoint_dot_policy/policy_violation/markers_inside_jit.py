"""Attacks: provenance the learner can write (issue 10, item 4).

The hand-made "kept by the policy" marks (``lax.reduce_precision`` at full precision) are written
inside jitted helpers, where the judge of f4a8146 also looked for them; the checkpoint with the
required policy is a decoy whose inputs are all behind ``stop_gradient``.
"""
import jax
import jax.numpy as jnp

nothing = jax.checkpoint_policies.nothing_saveable
dots = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
sg = jax.lax.stop_gradient


@jax.jit
def first(w1, x):
    return jax.lax.reduce_precision(x @ w1, 8, 23)


@jax.jit
def second(a, w2):
    z = jax.checkpoint(lambda a, w2: jax.nn.relu(a) @ w2, policy=nothing)(a, w2)
    return jax.lax.reduce_precision(z, 8, 23)


def checkpoint_dot_policy(w1, w2, x):
    z = second(first(w1, x), w2)
    decoy = jax.checkpoint(lambda a, b, v: jnp.sum(jax.nn.relu(v @ a) @ b), policy=dots)(sg(w1), sg(w2), sg(x))
    return jnp.sum(z * z) + 0.0 * decoy
