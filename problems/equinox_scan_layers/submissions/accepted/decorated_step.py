from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp


def loss(blocks, x):
    dynamic, static = eqx.partition(blocks, eqx.is_array)

    @partial(eqx.filter_checkpoint, policy=jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims,
             prevent_cse=False)
    def step(h, dynamic_layer):
        layer = eqx.combine(dynamic_layer, static)
        return jax.vmap(layer)(h), None

    h, _ = jax.lax.scan(step, x, dynamic)
    return jnp.mean(h * h)
