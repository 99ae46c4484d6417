import jax
import jax.numpy as jnp

GAMMA = 0.9


def _decay(T):
    i = jnp.arange(T)
    gap = (i[:, None] - i[None, :]).astype(jnp.float32)
    return jnp.where(gap >= 0, GAMMA ** gap, 0.0)


def _retention(x, Wq, Wk, Wv):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    return jnp.sum(jnp.tanh(((q @ k.T) * _decay(x.shape[0])) @ v))


def retention(x, Wq, Wk, Wv):
    return jax.checkpoint(_retention)(x, Wq, Wk, Wv)
