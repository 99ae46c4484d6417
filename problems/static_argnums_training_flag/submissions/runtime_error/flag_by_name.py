import jax
import jax.numpy as jnp


def body(W, x, is_training):
    a = jnp.tanh(x @ W)
    if is_training:
        a = a * jnp.where(jnp.arange(a.shape[-1]) % 2 == 0, 2.0, 0.0)
    return jnp.sum(a ** 2)


def masked_block(W, x, is_training):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(body, policy=policy)(W, x, is_training=is_training)
