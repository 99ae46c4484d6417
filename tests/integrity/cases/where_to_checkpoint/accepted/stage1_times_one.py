"""Legitimate: the first stage checkpointed; the output multiplied by 1.0 changes nothing (a
memory rule must not refuse it).
"""
import jax
import jax.numpy as jnp


def stage1(W1, x):
    return jnp.sin(W1 @ x)


def stage2(W2, h):
    return jnp.sin(W2 @ h)


def stage3(W3, h):
    return jnp.sin(W3 @ h)


def pipeline(W1, W2, W3, x):
    h = jax.checkpoint(stage1)(W1, x)
    return stage3(W3, stage2(W2, h)) * 1.0
