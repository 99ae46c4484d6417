import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def norm(z):
    return (z - z.mean(-1, keepdims=True)) / jnp.sqrt(z.var(-1, keepdims=True) + 1e-5)


def gpt2_block(Wq, Wk, Wv, Wo, W_fc, W_proj, x, heads):
    T, d = x.shape
    dh = d // heads

    def to_heads(z):
        return jnp.swapaxes(z.reshape(T, heads, dh), 0, 1)

    def block(params, x):
        Wq, Wk, Wv, Wo, W_fc, W_proj = params
        a = norm(x)
        q = to_heads(checkpoint_name(a @ Wq, "q"))
        k = to_heads(checkpoint_name(a @ Wk, "k"))
        v = to_heads(checkpoint_name(a @ Wv, "v"))
        mask = jnp.tril(jnp.ones((T, T), dtype=bool))
        p = jax.nn.softmax(jnp.where(mask, q @ jnp.swapaxes(k, 1, 2) / math.sqrt(dh), -jnp.inf), axis=-1)
        context = checkpoint_name(jnp.swapaxes(p @ v, 0, 1).reshape(T, d), "context")
        h = x + context @ Wo
        fc = checkpoint_name(norm(h) @ W_fc, "fc")
        return h + jax.nn.gelu(fc) @ W_proj

    keep = jax.checkpoint_policies.save_only_these_names("fc", "context", "v", "k", "q")
    return jax.remat(block, policy=keep)((Wq, Wk, Wv, Wo, W_fc, W_proj), x)
