import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    hidden = jax.checkpoint(jax.nn.relu)(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)
