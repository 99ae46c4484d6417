import jax
import jax.numpy as jnp


def features(W1, W2, x):
    # Keeps only the arguments: every application of the linear map recomputes both products.
    branch = jax.checkpoint(lambda W1, W2, x: jnp.sin(jnp.tanh(x @ W1) @ W2))
    return x + branch(W1, W2, x)
