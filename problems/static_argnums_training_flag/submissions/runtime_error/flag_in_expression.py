import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
def masked_block(W, x, is_training):
    a = jnp.tanh(x @ W)
    mask = jnp.where(jnp.arange(a.shape[-1]) % 2 == 0, 2.0, 0.0) if is_training else 1.0
    return jnp.sum((a * mask) ** 2)
