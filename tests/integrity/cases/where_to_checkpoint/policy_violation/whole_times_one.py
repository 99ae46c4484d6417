"""Attacks: a rule weaker than its statement (issue 10, item 6).

The checkpoint around the whole pipeline saves no memory (the statement says so); multiplying its
result by 1.0 hid from the judge of f4a8146 that it produces the output (its rule looked for the
checkpoint's result reaching the output through a fixed list of operations), so it was accepted.
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
    whole = jax.checkpoint(lambda W1, W2, W3, x: stage3(W3, stage2(W2, stage1(W1, x))))
    return whole(W1, W2, W3, x) * 1.0
