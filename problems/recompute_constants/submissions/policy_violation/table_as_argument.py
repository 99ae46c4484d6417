import jax
import jax.numpy as jnp


def decay_matrix(T):
    i = jnp.arange(T)
    gap = (i[:, None] - i[None, :]).astype(jnp.float32)
    return jnp.where(gap >= 0, 0.9 ** gap, 0.0)


@jax.checkpoint
def block(x, Wq, Wk, Wv, decay):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    return jnp.sum(jnp.tanh(((q @ k.T) * decay) @ v))


def retention(x, Wq, Wk, Wv):
    return block(x, Wq, Wk, Wv, decay_matrix(x.shape[0]))  # an input of the checkpoint is kept
