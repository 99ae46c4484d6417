import jax
import jax.numpy as jnp


def offload_mlp(w1, w2, x):
    # hidden = tanh(x @ w1); return sum(relu(hidden @ w2) ** 2).
    # Checkpoint it so that the two matrix products are kept in host memory ("pinned_host")
    # and everything else is recomputed on the backward pass.
    raise NotImplementedError
