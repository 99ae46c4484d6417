"""Attacks: a rule weaker than its statement (issue 10, item 6).

The last stage checkpointed and its result multiplied by an identity matrix: another operation
that the old rule's list of "output-preserving" operations did not name (accepted by the judge of
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


def pipeline(W1, W2, W3, x):
    out = jax.checkpoint(stage3)(W3, stage2(W2, stage1(W1, x)))
    return jnp.eye(out.shape[0], dtype=out.dtype) @ out
