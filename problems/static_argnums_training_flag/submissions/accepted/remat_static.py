import jax
import jax.numpy as jnp


def body(W, x, is_training):
    a = jnp.tanh(jnp.matmul(x, W))
    if is_training:
        keep = jnp.arange(W.shape[1]) % 2 == 0
        a = jnp.where(keep, 2.0 * a, 0.0)
    return jnp.sum(jnp.square(a))


checkpointed = jax.remat(body, static_argnums=(2,), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)


def masked_block(W, x, is_training):
    return checkpointed(W, x, is_training)
