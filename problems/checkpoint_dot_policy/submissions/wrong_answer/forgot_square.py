import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def checkpoint_dot_policy(w1, w2, x):
    def pipeline(w1, w2, x):
        return jnp.sum(jax.nn.relu(x @ w1) @ w2)  # the square is missing

    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
