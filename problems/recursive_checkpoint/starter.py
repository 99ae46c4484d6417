import jax
import jax.numpy as jnp


def sin_chain(x, depth):
    # Apply jnp.sin `depth` times, checkpointing recursively.
    for _ in range(depth):
        x = jnp.sin(x)
    return x
