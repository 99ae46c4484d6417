import jax
import jax.numpy as jnp


def segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(h @ Ws[i])
    return h


def train_loss(Ws, x, y):
    h = x
    for start in (0, 2):
        h = jax.checkpoint(segment)(h, Ws[start:start + 2])
    h = segment(h, Ws[4:])
    return jnp.mean((h - y) ** 2)
