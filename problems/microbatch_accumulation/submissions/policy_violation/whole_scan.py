import jax
import jax.numpy as jnp


def microbatch_loss(W1, W2, xm, ym):
    h = jax.nn.gelu(xm @ W1)
    return jnp.mean((h @ W2 - ym) ** 2)


@jax.checkpoint
def accumulated_loss(W1, W2, x, y):
    def step(total, batch):
        return total + microbatch_loss(W1, W2, *batch), None

    total, _ = jax.lax.scan(step, jnp.zeros((), x.dtype), (x, y))
    return total / x.shape[0]
