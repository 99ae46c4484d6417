import jax
import jax.numpy as jnp


def segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(h @ Ws[i])
    return h


def train_loss(Ws, x, y):
    h = x
    start = 0
    for size in (1, 1, 1, 1, 1, 1, 1):
        h = jax.checkpoint(segment)(h, Ws[start:start + size])
        start += size
    h = segment(h, Ws[start:])
    return jnp.mean((h - y) ** 2)
