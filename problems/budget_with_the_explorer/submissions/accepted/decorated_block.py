import math

import jax
import jax.numpy as jnp


def norm(z):
    mean = jnp.mean(z, axis=-1, keepdims=True)
    return (z - mean) * jax.lax.rsqrt(jnp.var(z, axis=-1, keepdims=True) + 1e-5)


# The checkpoint on the block's definition: the scan runs the checkpointed block as written.
@jax.checkpoint
def block(h, layer):
    w_qkv, w_o, w_in, w_out = layer
    batch, tokens, width = h.shape
    heads = width // 64
    q, k, v = jnp.split(norm(h) @ w_qkv, 3, axis=-1)
    q, k, v = (jnp.swapaxes(a.reshape(batch, tokens, heads, 64), 1, 2) for a in (q, k, v))
    causal = jnp.tril(jnp.ones((tokens, tokens), bool))
    scores = jnp.where(causal, q @ jnp.swapaxes(k, -1, -2) / math.sqrt(64), -1e9)
    attended = jnp.swapaxes(jax.nn.softmax(scores, axis=-1) @ v, 1, 2).reshape(batch, tokens, width)
    h = h + attended @ w_o
    return h + jax.nn.gelu(norm(h) @ w_in) @ w_out, None


def gpt2_loss(w_qkv, w_o, w_in, w_out, x):
    h, _ = jax.lax.scan(block, x, (w_qkv, w_o, w_in, w_out))
    return jnp.mean(h**2)
