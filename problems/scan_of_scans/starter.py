import math

import jax
import jax.numpy as jnp


def euler_loss(W, h0, dts):
    def step(h, dt):
        return h + dt * jnp.tanh(h @ W), None

    # One scan over all T steps keeps every h. Split the steps into sqrt(T) blocks of
    # sqrt(T) steps: an outer scan over blocks, an inner scan over the steps of a block,
    # with jax.checkpoint at both levels.
    h, _ = jax.lax.scan(step, h0, dts)
    return jnp.sum(h ** 2)
