import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def features(W1, W2, x):
    hidden = jnp.tanh(x @ W1)  # outside the checkpoint: its derivative factor is kept as usual
    return x + jax.checkpoint(lambda h, W2: jnp.sin(h @ W2), policy=policy)(hidden, W2)
