import jax
import jax.numpy as jnp


def features(W1, W2, x):
    branch = lambda W1, W2, x: jnp.sin(jnp.tanh(x @ W1) @ W2)  # noqa: E731
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(branch, policy=policy)(W1, W2, x)  # the "x +" is missing
