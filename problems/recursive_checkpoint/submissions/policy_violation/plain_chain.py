import jax.numpy as jnp


def sin_chain(x, depth):
    for _ in range(depth):
        x = jnp.sin(x)
    return x
