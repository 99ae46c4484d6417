import jax
import jax.numpy as jnp


def first_layer(W1, xm):
    return jax.nn.gelu(xm @ W1)


def accumulated_loss(W1, W2, x, y):
    def step(total, batch):
        xm, ym = batch
        h = jax.checkpoint(first_layer)(W1, xm)
        return total + jnp.mean((h @ W2 - ym) ** 2), None

    total, _ = jax.lax.scan(step, jnp.zeros((), x.dtype), (x, y))
    return total / x.shape[0]
