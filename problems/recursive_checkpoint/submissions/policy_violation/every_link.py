import jax
import jax.numpy as jnp


def sin_chain(x, depth):
    link = jax.checkpoint(jnp.sin)
    for _ in range(depth):
        x = link(x)
    return x
