import math
from functools import partial

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def layer_norm(z, eps=1e-5):
    centred = z - jnp.mean(z, axis=-1, keepdims=True)
    return centred * jax.lax.rsqrt(jnp.mean(centred * centred, axis=-1, keepdims=True) + eps)


def attention(a, Wq, Wk, Wv, heads):
    T, d = a.shape
    q = checkpoint_name(a @ Wq, "q").reshape(T, heads, d // heads)
    k = checkpoint_name(a @ Wk, "k").reshape(T, heads, d // heads)
    v = checkpoint_name(a @ Wv, "v").reshape(T, heads, d // heads)
    scores = jnp.einsum("thc,shc->hts", q, k) / math.sqrt(d // heads)
    causal = jnp.arange(T)[:, None] >= jnp.arange(T)[None, :]
    weights = jax.nn.softmax(jnp.where(causal, scores, -jnp.inf), axis=-1)
    return checkpoint_name(jnp.einsum("hts,shc->thc", weights, v).reshape(T, d), "context")


@partial(
    jax.checkpoint,
    policy=jax.checkpoint_policies.save_only_these_names("q", "k", "v", "context", "fc"),
    static_argnums=(7,),
)
def gpt2_block(Wq, Wk, Wv, Wo, W_fc, W_proj, x, heads):
    h = x + attention(layer_norm(x), Wq, Wk, Wv, heads) @ Wo
    fc = checkpoint_name(layer_norm(h) @ W_fc, "fc")
    return h + jax.nn.gelu(fc, approximate=True) @ W_proj
