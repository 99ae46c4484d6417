import math
from functools import partial

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def rms_norm(z):
    return z * jax.lax.rsqrt(jnp.mean(z * z, axis=-1, keepdims=True) + 1e-6)


def decoder(Wq, Wk, Wv, Wo, W_up, W_down, x, heads):
    T, d = x.shape
    c = d // heads

    def layer(h, weights):
        wq, wk, wv, wo, w_up, w_down = weights
        a = rms_norm(h)
        q = checkpoint_name(a @ wq, "query_proj").reshape(T, heads, c)
        k = checkpoint_name(a @ wk, "key_proj").reshape(T, heads, c)
        v = checkpoint_name(a @ wv, "value_proj").reshape(T, heads, c)
        scores = jnp.einsum("thc,shc->hts", q, k) / math.sqrt(c)
        causal = jnp.tril(jnp.ones((T, T), bool))
        weights = jax.nn.softmax(jnp.where(causal, scores, -jnp.inf), axis=-1)
        context = jnp.einsum("hts,shc->thc", weights, v).reshape(T, d)
        h = h + checkpoint_name(context @ wo, "out_proj")
        up = checkpoint_name(rms_norm(h) @ w_up, "mlp_up")
        return h + checkpoint_name(jax.nn.gelu(up) @ w_down, "mlp_down"), None

    # the preset on one checkpoint around the whole stack
    keep = jax.checkpoint_policies.save_only_these_names("query_proj", "key_proj", "value_proj")

    @partial(jax.checkpoint, policy=keep)
    def stack(x, *weights):
        h, _ = jax.lax.scan(layer, x, weights)
        return h

    h = stack(x, Wq, Wk, Wv, Wo, W_up, W_down)
    return h
