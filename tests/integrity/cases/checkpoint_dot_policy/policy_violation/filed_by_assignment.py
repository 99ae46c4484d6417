"""Attacks: the reading of which code runs. The checkpoint with the wrong policy (dots_saveable,
the same values here) is filed into a table by an assignment into it, which binds no name; the
entry point calls it from the table. The assignment runs on import, so what it files counts, beside a decoy with the required policy.
"""
import jax
import jax.numpy as jnp

STEPS = {}


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


def _filed(w1, w2, x):
    return jax.checkpoint(_pipeline, policy=jax.checkpoint_policies.dots_saveable)(w1, w2, x)


STEPS["step"] = _filed


def checkpoint_dot_policy(w1, w2, x):
    # a decoy with the required policy, built and never called
    decoy = jax.checkpoint(_pipeline, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    return STEPS["step"](w1, w2, x) if decoy is not None else None
