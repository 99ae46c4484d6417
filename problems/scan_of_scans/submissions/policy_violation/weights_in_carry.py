import math
from functools import partial

import jax
import jax.numpy as jnp


# The weights travel in the carry, so every kept carry holds a copy of W as well.
@partial(jax.checkpoint, prevent_cse=False)
def step(carry, dt):
    h, W = carry
    return (h + dt * jnp.tanh(jnp.dot(h, W)), W), None


@partial(jax.checkpoint, prevent_cse=False)
def block(carry, block_dts):
    return jax.lax.scan(step, carry, block_dts)[0], None


def euler_loss(W, h0, dts):
    n = math.isqrt(dts.shape[0])
    (h, _), _ = jax.lax.scan(block, (h0, W), jnp.reshape(dts, (n, n)))
    return jnp.square(h).sum()
