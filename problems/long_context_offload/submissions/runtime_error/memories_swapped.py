import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def rms_norm(z):
    return z * jax.lax.rsqrt(jnp.mean(z * z, axis=-1, keepdims=True) + 1e-6)


def attention(Wq, Wk, Wv, Wo, x):
    T, d = x.shape
    c = Wk.shape[1]
    a = rms_norm(x)
    q = checkpoint_name(a @ Wq, "q")
    k = checkpoint_name(a @ Wk, "k")
    v = checkpoint_name(a @ Wv, "v")
    qh = q.reshape(T, d // c, c).transpose(1, 0, 2)  # (heads, T, c)
    scores = jnp.einsum("htc,sc->hts", qh, k) / math.sqrt(c)
    causal = jnp.tril(jnp.ones((T, T), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -jnp.inf), axis=-1)
    context = checkpoint_name(jnp.einsum("hts,sc->thc", weights, v).reshape(T, d), "context")
    return x + context @ Wo


def long_attention(Wq, Wk, Wv, Wo, x):
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["k", "v"],
        names_which_can_be_offloaded=["q", "context"],
        offload_src="pinned_host",
        offload_dst="device",
    )
    return jax.checkpoint(attention, policy=policy)(Wq, Wk, Wv, Wo, x)
