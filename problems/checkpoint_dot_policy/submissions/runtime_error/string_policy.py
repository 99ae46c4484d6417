import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    pipeline = lambda w1, w2, x: jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)
    return jax.checkpoint(pipeline, policy="dots_with_no_batch_dims_saveable")(w1, w2, x)
