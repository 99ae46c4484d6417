import equinox as eqx
import jax
import jax.numpy as jnp


def loss(model, x):
    apply = eqx.filter_checkpoint(lambda m, x: jax.vmap(m)(x), policy=jax.checkpoint_policies.everything_saveable)
    return jnp.mean(apply(model, x) ** 2)
