import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    return jnp.sum((jax.nn.relu(w1 @ x) @ w2) ** 2)
