import jax
import jax.numpy as jnp


def accumulated_loss(W1, W2, x, y):
    def step(total, batch):
        xm, ym = batch
        h = jax.nn.gelu(xm @ W1)
        return total + jnp.mean((h @ W2 - ym) ** 2), None

    total, _ = jax.lax.scan(step, jnp.zeros((), x.dtype), (x, y))
    return total / x.shape[0]
