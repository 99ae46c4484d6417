import jax
import jax.numpy as jnp


def accumulated_loss(W1, W2, x, y):
    # x, y: (M, B, d), M microbatches of B rows each.
    # The mean over microbatches of mean((gelu(x[m] @ W1) @ W2 - y[m]) ** 2),
    # with the gradient step holding one microbatch's activations at a time.
    raise NotImplementedError
