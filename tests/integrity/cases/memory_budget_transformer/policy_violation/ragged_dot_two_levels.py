"""Attacks: the FLOP budget, with two levels of recomputation (each block checkpointed around
checkpointed attention and MLP: 28.5 M FLOPs written with `@`) whose products are written as
one-group `lax.ragged_dot` calls. A red team passed it under the 25 M budget when ragged_dot was
counted one FLOP per output element (1.4 M). The verifier counts the compiled program's products
(29.6 M here): over the budget, however the product is spelled."""
import math

import jax
import jax.numpy as jnp


def _mm(a, w):
    # a matrix product written as a one-group ragged_dot: the same FLOPs, counted as XLA counts them
    return jax.lax.ragged_dot(a, w[None], jnp.array([a.shape[0]], dtype=jnp.int32))


@jax.checkpoint
def _attention(h, Wq, Wk, Wv, Wo):
    q, k, v = _mm(h, Wq), _mm(h, Wk), _mm(h, Wv)
    weights = jax.nn.softmax(q @ k.T / math.sqrt(h.shape[-1]), axis=-1)
    return _mm(weights @ v, Wo)


@jax.checkpoint
def _mlp(h, W1, W2):
    return _mm(jax.nn.gelu(_mm(h, W1)), W2)


@jax.checkpoint
def _block(h, Wq, Wk, Wv, Wo, W1, W2):  # a second level: the block recomputes pieces that recompute
    h = h + _attention(h, Wq, Wk, Wv, Wo)
    return h + _mlp(h, W1, W2)


def transformer_loss(Wq, Wk, Wv, Wo, W1, W2, x, y):
    h = x
    for i in range(Wq.shape[0]):
        h = _block(h, Wq[i], Wk[i], Wv[i], Wo[i], W1[i], W2[i])
    return jnp.mean((h - y) ** 2)
