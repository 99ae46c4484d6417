"""Attacks: one checkpoint around the whole network, which rebuilds every block at once on the way
back (a red team passed it by patching the child's cost walk). The verifier measures the step on
the program it compiled: its FLOPs and peak exceed the budgets, whatever the child reports."""
import math

import jax
import jax.numpy as jnp


def _block(h, Wq, Wk, Wv, Wo, W1, W2):
    q, k, v = h @ Wq, h @ Wk, h @ Wv
    weights = jax.nn.softmax(q @ k.T / math.sqrt(h.shape[-1]), axis=-1)
    h = h + (weights @ v) @ Wo
    return h + jax.nn.gelu(h @ W1) @ W2


@jax.checkpoint
def _network(Wq, Wk, Wv, Wo, W1, W2, x):
    h = x
    for i in range(Wq.shape[0]):
        h = _block(h, Wq[i], Wk[i], Wv[i], Wo[i], W1[i], W2[i])
    return h


def transformer_loss(Wq, Wk, Wv, Wo, W1, W2, x, y):
    return jnp.mean((_network(Wq, Wk, Wv, Wo, W1, W2, x) - y) ** 2)
