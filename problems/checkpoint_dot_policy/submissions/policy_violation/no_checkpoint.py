import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    y = jax.nn.relu(x @ w1)
    return jnp.sum((y @ w2) ** 2)
