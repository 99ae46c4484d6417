import equinox as eqx
import jax
import jax.numpy as jnp


def loss(model, x):
    # model: an eqx.nn.MLP that maps one example (d,) to (d,); x: a batch (B, d).
    # Checkpoint the batched application with eqx.filter_checkpoint and a policy.
    return jnp.mean(jax.vmap(model)(x) ** 2)
