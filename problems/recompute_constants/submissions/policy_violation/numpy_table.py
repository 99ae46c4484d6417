import jax
import jax.numpy as jnp
import numpy as np


def retention(x, Wq, Wk, Wv):
    def block(x, Wq, Wk, Wv):
        i = np.arange(x.shape[0])
        gap = i[:, None] - i[None, :]
        decay = np.where(gap >= 0, 0.9 ** gap, 0.0).astype(np.float32)  # a constant baked into the program
        q, k, v = x @ Wq, x @ Wk, x @ Wv
        return jnp.sum(jnp.tanh(((q @ k.T) * decay) @ v))

    return jax.checkpoint(block)(x, Wq, Wk, Wv)
