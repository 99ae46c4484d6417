import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def layer_norm(z):
    mean = z.mean(axis=-1, keepdims=True)
    return (z - mean) / jnp.sqrt(((z - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-5)


def split_heads(z, heads):
    T, d = z.shape
    return z.reshape(T, heads, d // heads).transpose(1, 0, 2)


def gpt2_block(Wq, Wk, Wv, Wo, W_fc, W_proj, x, heads):
    def block(Wq, Wk, Wv, Wo, W_fc, x):
        a = layer_norm(x)
        q = checkpoint_name(a @ Wq, "q")
        k = checkpoint_name(a @ Wk, "k")
        v = checkpoint_name(a @ Wv, "v")
        qh, kh, vh = (split_heads(z, heads) for z in (q, k, v))
        scores = qh @ kh.transpose(0, 2, 1) / math.sqrt(qh.shape[-1])
        T = x.shape[0]
        scores = jnp.where(jnp.tril(jnp.ones((T, T), bool)), scores, -jnp.inf)
        heads_out = jax.nn.softmax(scores, axis=-1) @ vh
        context = checkpoint_name(heads_out.transpose(1, 0, 2).reshape(x.shape), "context")
        h = x + context @ Wo
        return h, checkpoint_name(layer_norm(h) @ W_fc, "fc")

    keep = jax.checkpoint_policies.save_only_these_names("q", "k", "v", "context", "fc")
    h, fc = jax.checkpoint(block, policy=keep)(Wq, Wk, Wv, Wo, W_fc, x)
    # the last projection, after the checkpoint
    return h + jax.nn.gelu(fc) @ W_proj
