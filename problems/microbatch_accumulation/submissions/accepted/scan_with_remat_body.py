import jax
import jax.numpy as jnp


def accumulated_loss(W1, W2, x, y):
    @jax.remat
    def body(total, batch):
        xm, ym = batch
        err = jax.nn.gelu(xm @ W1) @ W2 - ym
        return total + jnp.mean(err * err), None

    total, _ = jax.lax.scan(body, jnp.float32(0), (x, y))
    return total / x.shape[0]
