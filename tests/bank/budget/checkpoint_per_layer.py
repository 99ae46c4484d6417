import jax
import jax.numpy as jnp


def layer(h, W):
    return jnp.tanh(h @ W)


def train_loss(Ws, x, y):
    h = x
    for i in range(Ws.shape[0]):  # one checkpoint per layer
        h = jax.checkpoint(layer)(h, Ws[i])
    return jnp.mean((h - y) ** 2)
