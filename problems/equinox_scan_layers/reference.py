import equinox as eqx
import jax
import jax.numpy as jnp


def loss(blocks, x):
    arrays, rest = eqx.partition(blocks, eqx.is_array)

    def step(h, layer_arrays):
        block = eqx.combine(layer_arrays, rest)
        return jax.vmap(block)(h), None

    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    h, _ = jax.lax.scan(eqx.filter_checkpoint(step, policy=policy), x, arrays)
    return jnp.mean(h ** 2)
