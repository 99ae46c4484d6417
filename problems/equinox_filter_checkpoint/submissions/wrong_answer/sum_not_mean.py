import equinox as eqx
import jax
import jax.numpy as jnp


def loss(model, x):
    apply = eqx.filter_checkpoint(lambda m, x: jax.vmap(m)(x), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    return jnp.sum(apply(model, x) ** 2)
