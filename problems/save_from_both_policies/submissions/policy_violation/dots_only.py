import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies


def block(w1, w2, x):
    a = x @ w1
    gate = checkpoint_name(jax.nn.sigmoid(a), "gate")
    return jnp.sum(jnp.sin((gate * a) @ w2))


def gated_block(w1, w2, x):
    return jax.checkpoint(block, policy=cp.dots_with_no_batch_dims_saveable)(w1, w2, x)
