import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

# The presets a training configuration chooses from by name, as name lists over the model's labels.
names = jax.checkpoint_policies
REMAT_PRESETS = {
    "full": names.nothing_saveable,
    "save_qkv_proj": names.save_only_these_names("query_proj", "key_proj", "value_proj"),
    "save_out_proj": names.save_only_these_names("out_proj"),
    "save_dot_except_mlp": names.save_only_these_names("query_proj", "key_proj", "value_proj", "out_proj"),
}
REMAT_POLICY = "save_qkv_proj"


def rms_norm(z):
    return z / jnp.sqrt(jnp.mean(jnp.square(z), axis=-1, keepdims=True) + 1e-6)


def attention(a, wq, wk, wv, wo, heads):
    T, d = a.shape
    c = d // heads
    q = checkpoint_name(jnp.dot(a, wq), "query_proj").reshape(T, heads, c)
    k = checkpoint_name(jnp.dot(a, wk), "key_proj").reshape(T, heads, c)
    v = checkpoint_name(jnp.dot(a, wv), "value_proj").reshape(T, heads, c)
    later = jnp.arange(T)[None, :] > jnp.arange(T)[:, None]
    scores = jnp.where(later, -jnp.inf, jnp.einsum("thc,shc->hts", q, k) / math.sqrt(c))
    context = jnp.einsum("hts,shc->thc", jax.nn.softmax(scores, axis=-1), v).reshape(T, d)
    return checkpoint_name(jnp.dot(context, wo), "out_proj")


def decoder(Wq, Wk, Wv, Wo, W_up, W_down, x, heads):
    def layer(h, weights):
        wq, wk, wv, wo, w_up, w_down = weights
        h = h + attention(rms_norm(h), wq, wk, wv, wo, heads)
        up = checkpoint_name(jnp.dot(rms_norm(h), w_up), "mlp_up")
        return h + checkpoint_name(jnp.dot(jax.nn.gelu(up), w_down), "mlp_down"), None

    step = jax.remat(layer, policy=REMAT_PRESETS[REMAT_POLICY])
    h, _ = jax.lax.scan(step, x, (Wq, Wk, Wv, Wo, W_up, W_down))
    return h
