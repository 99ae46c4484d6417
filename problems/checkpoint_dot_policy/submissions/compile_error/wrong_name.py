import jax
import jax.numpy as jnp


def dot_policy(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)
