"""Functions as a notebook's cells would define them, for the tests of ``arena.source``."""

import functools

import jax
import jax.numpy as jnp
from jax import checkpoint

SCALE = 2.0
SIZES = (8, 16)
ARRAY = jnp.ones(3)


def pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2) * SCALE


def attempt(w1, w2, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return checkpoint(pipeline, policy=policy)(w1, w2, x)


@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.nothing_saveable)
def decorated(x):
    return jnp.sin(x) * len(SIZES)


def uses_an_array(x):
    return x + ARRAY


def outer():
    factor = 3.0

    def inner(x):
        return x * factor

    return inner


renamed = pipeline


def calls_renamed(w1, w2, x):
    return renamed(w1, w2, x)
