import jax
import jax.numpy as jnp


def body(W, x, is_training):
    a = jnp.tanh(x @ W)
    if is_training and a.shape[-1] > 1:  # a shape is known while tracing; the flag is not
        a = a * jnp.where(jnp.arange(a.shape[-1]) % 2 == 0, 2.0, 0.0)
    return jnp.sum(a ** 2)


block = jax.remat(body, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)


def masked_block(W, x, is_training):
    return block(W, x, is_training)
