import jax
import jax.numpy as jnp


def _segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(h @ Ws[i])
    return h


def train_loss(Ws, x, y):
    h = x
    for start in (0, 2, 4):  # three checkpointed pairs, then a plain tail
        h = jax.checkpoint(_segment)(h, Ws[start:start + 2])
    h = _segment(h, Ws[6:])
    return jnp.mean((h - y) ** 2)
