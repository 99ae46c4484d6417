import jax
import jax.numpy as jnp


def _branch(W1, W2, x):
    return jnp.sin(jnp.tanh(x @ W1) @ W2)


def features(W1, W2, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return x + jax.checkpoint(_branch, policy=policy)(W1, W2, x)
