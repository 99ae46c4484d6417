"""Legitimate: the reference's strategy (one checkpoint per block) with `@jax.jit` on the block.
The walk of the child's traced program counted a jit call's outputs twice and refused it; the
verifier's walk of the compiled program counts every operation once: the same peak as the reference."""
import math

import jax
import jax.numpy as jnp


@jax.jit
def _block(h, Wq, Wk, Wv, Wo, W1, W2):
    q, k, v = h @ Wq, h @ Wk, h @ Wv
    weights = jax.nn.softmax(q @ k.T / math.sqrt(h.shape[-1]), axis=-1)
    h = h + (weights @ v) @ Wo
    return h + jax.nn.gelu(h @ W1) @ W2


def transformer_loss(Wq, Wk, Wv, Wo, W1, W2, x, y):
    h = x
    for i in range(Wq.shape[0]):
        h = jax.checkpoint(_block)(h, Wq[i], Wk[i], Wv[i], Wo[i], W1[i], W2[i])
    return jnp.mean((h - y) ** 2)
