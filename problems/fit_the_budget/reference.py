import jax
import jax.numpy as jnp


def block(h, layer):
    w_in, w_out = layer
    return h + jnp.tanh(h @ w_in) @ w_out, None


def train_loss(W_in, W_out, x, y):
    # the explorer's plan within the budget: each block rebuilt alone on the way back
    h, _ = jax.lax.scan(jax.checkpoint(block), x, (W_in, W_out))
    return jnp.mean((h - y) ** 2)
