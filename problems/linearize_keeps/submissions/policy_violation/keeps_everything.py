import jax
import jax.numpy as jnp


def features(W1, W2, x):
    branch = lambda W1, W2, x: jnp.sin(jnp.tanh(x @ W1) @ W2)  # noqa: E731
    policy = jax.checkpoint_policies.everything_saveable
    return x + jax.checkpoint(branch, policy=policy)(W1, W2, x)
