import math
from functools import partial

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

save_qkv_proj = jax.checkpoint_policies.save_only_these_names("value_proj", "key_proj", "query_proj")


def rms_norm(z):
    return z * jax.lax.rsqrt(jnp.mean(z * z, axis=-1, keepdims=True) + 1e-6)


def decoder(Wq, Wk, Wv, Wo, W_up, W_down, x, heads):
    T, d = x.shape
    c = d // heads

    def split(z):
        return jnp.swapaxes(z.reshape(T, heads, c), 0, 1)  # (heads, T, c)

    # The policy on a decorator of the layer: each turn of the scan is checkpointed.
    @partial(jax.checkpoint, policy=save_qkv_proj)
    def layer(h, weights):
        wq, wk, wv, wo, w_up, w_down = weights
        a = rms_norm(h)
        q = split(checkpoint_name(a @ wq, "query_proj"))
        k = split(checkpoint_name(a @ wk, "key_proj"))
        v = split(checkpoint_name(a @ wv, "value_proj"))
        mask = jnp.tril(jnp.ones((T, T), dtype=bool))
        p = jax.nn.softmax(jnp.where(mask, q @ jnp.swapaxes(k, 1, 2) / math.sqrt(c), -jnp.inf), axis=-1)
        h = h + checkpoint_name(jnp.swapaxes(p @ v, 0, 1).reshape(T, d) @ wo, "out_proj")
        up = checkpoint_name(rms_norm(h) @ w_up, "mlp_up")
        return h + checkpoint_name(jax.nn.gelu(up) @ w_down, "mlp_down"), None

    h, _ = jax.lax.scan(layer, x, (Wq, Wk, Wv, Wo, W_up, W_down))
    return h
