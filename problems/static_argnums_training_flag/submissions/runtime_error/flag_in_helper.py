import jax
import jax.numpy as jnp


def every_other(a, training):
    if training:
        return a * jnp.where(jnp.arange(a.shape[-1]) % 2 == 0, 2.0, 0.0)
    return a


def body(W, x, is_training):
    a = every_other(jnp.tanh(x @ W), is_training)
    return jnp.sum(a ** 2)


def masked_block(W, x, is_training):
    return jax.remat(body, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(W, x, is_training)
