"""Attacks: the reading of which code runs. The checkpoint with the wrong policy (dots_saveable,
which saves the very same values here, so only the source can tell) sits in a function that no
statement names: a decorator of the learner's files it in a table on import, and the entry point
calls it from there. A reader that judged only functions named by the entry point would take it for
dead code, see only the decoy, and accept the submission.
"""
import jax
import jax.numpy as jnp

STEPS = {}


def register(function):
    STEPS["step"] = function
    return function


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


@register
def _hidden_step(w1, w2, x):
    return jax.checkpoint(_pipeline, policy=jax.checkpoint_policies.dots_saveable)(w1, w2, x)


def checkpoint_dot_policy(w1, w2, x):
    # a decoy with the required policy, built and never called
    decoy = jax.checkpoint(_pipeline, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    return STEPS["step"](w1, w2, x) if decoy is not None else None
