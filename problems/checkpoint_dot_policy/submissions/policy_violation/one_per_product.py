import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    matmul = jax.checkpoint(lambda a, b: a @ b)
    hidden = jax.nn.relu(matmul(x, w1))
    return jnp.sum(matmul(hidden, w2) ** 2)
