import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def rms_norm(z):
    return z * jax.lax.rsqrt(jnp.mean(z * z, axis=-1, keepdims=True) + 1e-6)


def heads_of(q, c):
    T, d = q.shape
    return jnp.swapaxes(q.reshape(T, d // c, c), 0, 1)


def block(params, x):
    Wq, Wk, Wv, Wo = params
    T, d = x.shape
    c = Wk.shape[1]
    a = rms_norm(x)
    q = heads_of(checkpoint_name(jnp.dot(a, Wq), "q"), c)
    k = checkpoint_name(jnp.dot(a, Wk), "k")
    v = checkpoint_name(jnp.dot(a, Wv), "v")
    mask = jnp.tril(jnp.ones((T, T), dtype=bool))
    weights = jax.nn.softmax(jnp.where(mask, q @ k.T / math.sqrt(c), -jnp.inf), axis=-1)
    context = checkpoint_name(jnp.swapaxes(weights @ v, 0, 1).reshape(T, d), "context")
    return x + context @ Wo


@jax.jit
def long_attention(Wq, Wk, Wv, Wo, x):
    split = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["k", "v"],
        names_which_can_be_offloaded=["q", "context"],
        offload_src="device",
        offload_dst="pinned_host",
    )
    return jax.remat(block, policy=split)((Wq, Wk, Wv, Wo), x)
