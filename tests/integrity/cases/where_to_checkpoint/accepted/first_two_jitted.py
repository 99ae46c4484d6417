"""Legitimate: the first two stages checkpointed together and jitted (the reference's placement).
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
    first_two = jax.checkpoint(jax.jit(lambda W1, W2, x: stage2(W2, stage1(W1, x))))
    return stage3(W3, first_two(W1, W2, x))
