import math

import jax
import jax.numpy as jnp


@jax.checkpoint
def network(Wq, Wk, Wv, Wo, W1, W2, x):
    h = x
    for i in range(Wq.shape[0]):
        q, k, v = h @ Wq[i], h @ Wk[i], h @ Wv[i]
        weights = jax.nn.softmax(q @ k.T / math.sqrt(h.shape[-1]), axis=-1)
        h = h + (weights @ v) @ Wo[i]
        h = h + jax.nn.gelu(h @ W1[i]) @ W2[i]
    return h


def transformer_loss(Wq, Wk, Wv, Wo, W1, W2, x, y):
    return jnp.mean((network(Wq, Wk, Wv, Wo, W1, W2, x) - y) ** 2)
