import math

import jax
import jax.numpy as jnp


def decay_matrix(T):
    rows = jax.lax.broadcasted_iota(jnp.int32, (T, T), 0)
    cols = jax.lax.broadcasted_iota(jnp.int32, (T, T), 1)
    gap = (rows - cols).astype(jnp.float32)
    return jnp.exp(gap * math.log(0.9)) * (gap >= 0)


@jax.jit
def retention(x, Wq, Wk, Wv):
    def block(x, Wq, Wk, Wv):
        q = jnp.einsum("td,de->te", x, Wq)
        k = jnp.einsum("td,de->te", x, Wk)
        v = jnp.einsum("td,de->te", x, Wv)
        s = jnp.einsum("te,se->ts", q, k) * decay_matrix(x.shape[0])
        return jnp.sum(jnp.tanh(s @ v))

    return jax.remat(block)(x, Wq, Wk, Wv)
