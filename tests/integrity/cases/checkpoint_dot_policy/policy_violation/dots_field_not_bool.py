"""Attacks: policies known by identity (issue 10, item 3).

A ``DotsSaveable`` built by the submission with an ``int`` where JAX declares a ``bool``: it
compares equal to the no-batch policy, and ``1`` happens to behave like ``True``, but a policy the
judge recognises must be JAX's own, with fields of exactly their declared types (the judge of
f4a8146 accepted it).
"""
import jax
import jax.numpy as jnp

policy = type(jax.checkpoint_policies.dots_saveable)(1)


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
