import jax
import jax.numpy as jnp


def microbatch_loss(W1, W2, xm, ym):
    h = jax.nn.gelu(xm @ W1)
    return jnp.mean((h @ W2 - ym) ** 2)


def accumulated_loss(W1, W2, x, y):
    keep_dots = jax.checkpoint_policies.dots_with_no_batch_dims_saveable

    def step(total, batch):
        xm, ym = batch
        return total + jax.checkpoint(microbatch_loss, policy=keep_dots)(W1, W2, xm, ym), None

    total, _ = jax.lax.scan(step, jnp.zeros((), x.dtype), (x, y))
    return total / x.shape[0]
