import jax
import jax.numpy as jnp


def apply(n, v):
    """Apply sin n times, checkpointing the later half recursively."""
    if n == 1:
        return jnp.sin(v)
    if n == 2:
        return jnp.sin(jnp.sin(v))
    half = n // 2
    v = jax.checkpoint(lambda u: apply(n - half, u))(v)
    return apply(half, v)


def sin_chain(x, depth):
    return apply(depth, x)
