import jax
import jax.numpy as jnp


def retention(x, Wq, Wk, Wv):
    i = jnp.arange(x.shape[0])
    gap = (i[:, None] - i[None, :]).astype(jnp.float32)
    decay = jnp.where(gap >= 0, 0.9 ** gap, 0.0)  # built before the checkpoint, closed over

    def block(x, Wq, Wk, Wv):
        q, k, v = x @ Wq, x @ Wk, x @ Wv
        return jnp.sum(jnp.tanh(((q @ k.T) * decay) @ v))

    return jax.checkpoint(block)(x, Wq, Wk, Wv)
