import jax
import jax.numpy as jnp


@jax.checkpoint
def stack(Ws, x):
    h, _ = jax.lax.scan(lambda h, W: (jnp.tanh(h @ W), None), x, Ws)
    return h


def scanned_mlp(Ws, x):
    return jnp.sum(stack(Ws, x) ** 2)
