from functools import partial

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


# Naming more values is fine; only "hidden" may be saved.
@partial(jax.checkpoint, policy=jax.checkpoint_policies.save_only_these_names("hidden"))
def named_block(w1, w2, x):
    pre = checkpoint_name(jnp.dot(x, w1), "pre")
    hidden = checkpoint_name(jnp.tanh(pre), "hidden")
    return jnp.sin(hidden @ w2).sum()
