"""Attacks: a rule weaker than its statement (issue 10, item 6).

The whole pipeline checkpointed, its result passed through ``jnp.where(True, out, 0)``: the
output still comes straight from the checkpoint, which saves no memory (accepted by the judge of
f4a8146).
"""
import jax
import jax.numpy as jnp


def stage1(W1, x):
    return jnp.sin(W1 @ x)


def stage2(W2, h):
    return jnp.sin(W2 @ h)


def stage3(W3, h):
    return jnp.sin(W3 @ h)


@jax.checkpoint
def whole(W1, W2, W3, x):
    return stage3(W3, stage2(W2, stage1(W1, x)))


def pipeline(W1, W2, W3, x):
    return jnp.where(True, whole(W1, W2, W3, x), 0.0)
