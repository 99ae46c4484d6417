import math

import jax
import jax.numpy as jnp


def layer_norm(z, eps=1e-5):
    centred = z - z.mean(-1, keepdims=True)
    return centred / jnp.sqrt(jnp.mean(centred**2, axis=-1, keepdims=True) + eps)


def attention(a, w_qkv):
    batch, tokens, width = a.shape
    heads = width // 64
    q, k, v = (part.reshape(batch, tokens, heads, 64) for part in jnp.split(a @ w_qkv, 3, axis=-1))
    scores = jnp.einsum("bthc,bshc->bhts", q, k) / math.sqrt(64)
    future = jnp.arange(tokens)[None, :] > jnp.arange(tokens)[:, None]
    weights = jax.nn.softmax(jnp.where(future, -1e9, scores), axis=-1)
    return jnp.einsum("bhts,bshc->bthc", weights, v).reshape(batch, tokens, width)


def block(h, layer):
    w_qkv, w_o, w_in, w_out = layer
    h = h + attention(layer_norm(h), w_qkv) @ w_o
    return h + jax.nn.gelu(layer_norm(h) @ w_in) @ w_out, None


def gpt2_loss(w_qkv, w_o, w_in, w_out, x):
    # inside a scan, prevent_cse protects nothing: each turn is its own computation
    step = jax.remat(block, prevent_cse=False)
    h, _ = jax.lax.scan(step, x, (w_qkv, w_o, w_in, w_out))
    return jnp.mean(jnp.square(h))
