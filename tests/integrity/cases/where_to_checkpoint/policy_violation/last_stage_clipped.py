"""Attacks: a rule weaker than its statement (issue 10, item 6).

Only the last stage is checkpointed (recomputed the moment the backward pass starts, so nothing is
saved), its result passed through ``jnp.maximum(out, -2.0)``, which changes no value of a sine but
is not among the operations the old rule followed (accepted by the judge of f4a8146, and until issue
21, which compared it with this very program without checkpoints, as its child reported it). The
verifier measures what the backward pass holds at once on the program it ran (120 bytes), more than
the reference's computation holds with no checkpoint at all (108): the checkpoint saves nothing.
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
    h = stage2(W2, stage1(W1, x))
    out = jax.checkpoint(stage3)(W3, h)
    return jnp.maximum(out, -2.0)
