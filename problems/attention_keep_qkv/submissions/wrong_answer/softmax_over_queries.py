import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def attention_block(x, Wq, Wk, Wv, Wo):
    def block(x, Wq, Wk, Wv, Wo):
        q = checkpoint_name(x @ Wq, "q")
        k = checkpoint_name(x @ Wk, "k")
        v = checkpoint_name(x @ Wv, "v")
        weights = jax.nn.softmax(q @ k.T / math.sqrt(x.shape[-1]), axis=0)  # normalises each key's column
        return jnp.sum(jnp.tanh((weights @ v) @ Wo))

    policy = jax.checkpoint_policies.save_only_these_names("q", "k", "v")
    return jax.checkpoint(block, policy=policy)(x, Wq, Wk, Wv, Wo)
