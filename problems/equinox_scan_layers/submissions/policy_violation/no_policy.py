import equinox as eqx
import jax
import jax.numpy as jnp


def loss(blocks, x):
    arrays, rest = eqx.partition(blocks, eqx.is_array)

    def step(h, layer_arrays):
        return jax.vmap(eqx.combine(layer_arrays, rest))(h), None

    h, _ = jax.lax.scan(eqx.filter_checkpoint(step), x, arrays)
    return jnp.mean(h ** 2)
