import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def checkpoint_dot_policy(w1, w2, x):
    # Only the second half is checkpointed: the relu before it saves its output as usual.
    y = jax.nn.relu(x @ w1)
    tail = jax.checkpoint(lambda y, w2: jnp.sum((y @ w2) ** 2), policy=policy)
    return tail(y, w2)
