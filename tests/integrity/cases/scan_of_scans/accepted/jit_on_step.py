"""Legitimate: the reference's two levels of checkpointed scans with `@jax.jit` on the step. The
child's walk counted the jit call's outputs twice and refused it; the verifier's walk counts them once."""
import math

import jax
import jax.numpy as jnp


def euler_loss(W, h0, dts):
    steps = dts.shape[0]
    blocks = math.isqrt(steps)

    @jax.checkpoint
    @jax.jit
    def step(h, dt):
        return h + dt * jnp.tanh(h @ W), None

    @jax.checkpoint
    def block(h, block_dts):
        h, _ = jax.lax.scan(step, h, block_dts)
        return h, None

    h, _ = jax.lax.scan(block, h0, dts.reshape(blocks, steps // blocks))
    return jnp.sum(h ** 2)
