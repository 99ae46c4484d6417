import jax
import jax.numpy as jnp


def masked_block(W, x, is_training):
    def body(W, x):
        a = jnp.tanh(jnp.dot(x, W))
        if is_training:  # decided before tracing: a closure, no static_argnums needed
            a = a * jnp.where(jnp.arange(a.shape[-1]) % 2 == 0, 2.0, 0.0)
        return jnp.sum(a * a)

    return jax.checkpoint(body, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(W, x)
