from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.checkpoint, static_argnums=(2,), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
def masked_block(W, x, is_training):
    a = jnp.tanh(x @ W) * jnp.where(jnp.arange(W.shape[1]) % 2 == 0, 2.0, 0.0)
    return jnp.sum(a ** 2)
