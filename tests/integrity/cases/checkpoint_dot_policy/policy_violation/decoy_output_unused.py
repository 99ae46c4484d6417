"""Attacks: provenance the learner can write, and a decoy checkpoint (issue 10, item 4).

The decoy checkpoint with the required policy is computed and thrown away (its output is not
used), so it is on no path to the output. The real computation is marked with
``lax.reduce_precision`` as if a policy had kept its products (accepted by the judge of f4a8146).
"""
import jax
import jax.numpy as jnp

nothing = jax.checkpoint_policies.nothing_saveable
dots = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def checkpoint_dot_policy(w1, w2, x):
    jax.checkpoint(lambda a, b, v: jnp.sum((v @ a) @ b), policy=dots)(w1, w2, x)
    a = jax.lax.reduce_precision(x @ w1, exponent_bits=8, mantissa_bits=23)
    z = jax.checkpoint(lambda a, w2: jax.nn.relu(a) @ w2, policy=nothing)(a, w2)
    z = jax.lax.reduce_precision(z, exponent_bits=8, mantissa_bits=23)
    return jnp.sum(z * z)
