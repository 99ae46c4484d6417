import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    # Build the pipeline x @ w1 -> relu -> @ w2 -> square -> sum,
    # wrapped in jax.checkpoint with the dots policy.
    raise NotImplementedError
