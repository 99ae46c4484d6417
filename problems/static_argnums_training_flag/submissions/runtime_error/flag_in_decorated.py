from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
def masked_block(W, x, is_training):
    a = jnp.tanh(x @ W)
    if is_training:  # the flag arrives through the checkpoint as a traced value
        a = a * jnp.where(jnp.arange(a.shape[-1]) % 2 == 0, 2.0, 0.0)
    return jnp.sum(a ** 2)
