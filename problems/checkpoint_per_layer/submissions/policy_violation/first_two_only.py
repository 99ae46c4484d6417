import jax
import jax.numpy as jnp


def layer(W, x):
    return jnp.sin(W @ x)


def three_layers(W1, W2, W3, x):
    x = jax.checkpoint(layer)(W1, x)
    x = jax.checkpoint(layer)(W2, x)
    return layer(W3, x)
