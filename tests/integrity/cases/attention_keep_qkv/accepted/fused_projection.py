"""Legitimate: the common fused projection. One matrix product makes q, k and v together, `split`
cuts it in three, and each part gets its name: the checkpoint keeps exactly the named q, k and v
that the problem asks for. The structure rule once counted the products the checkpoint encloses
(four here, six in the reference) and refused it.
"""
import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def _attention(x, Wq, Wk, Wv, Wo):
    qkv = x @ jnp.concatenate([Wq, Wk, Wv], axis=1)
    q, k, v = jnp.split(qkv, 3, axis=1)
    q, k, v = checkpoint_name(q, "q"), checkpoint_name(k, "k"), checkpoint_name(v, "v")
    weights = jax.nn.softmax(q @ k.T / math.sqrt(x.shape[-1]), axis=-1)
    return jnp.sum(jnp.tanh((weights @ v) @ Wo))


def attention_block(x, Wq, Wk, Wv, Wo):
    policy = jax.checkpoint_policies.save_only_these_names("q", "k", "v")
    return jax.checkpoint(_attention, policy=policy)(x, Wq, Wk, Wv, Wo)
