import equinox as eqx
import jax
import jax.numpy as jnp


def loss(blocks, x):
    params, static = eqx.partition(blocks, eqx.is_array)

    def step(h, layer):
        return jax.vmap(eqx.combine(layer, static))(h), None

    # After partition the scanned part holds arrays only, so jax.checkpoint works as well.
    step = jax.checkpoint(step, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    final, _ = jax.lax.scan(step, x, params)
    return jnp.square(final).mean()
