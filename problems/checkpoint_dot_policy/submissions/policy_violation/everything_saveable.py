import jax
import jax.numpy as jnp


def pipeline(w1, w2, x):
    y = jax.nn.relu(x @ w1)
    return jnp.sum((y @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=jax.checkpoint_policies.everything_saveable)(w1, w2, x)
