import jax
import jax.numpy as jnp

layer = jax.checkpoint(lambda W, x: jnp.sin(W @ x), policy=jax.checkpoint_policies.dots_saveable)


def three_layers(W1, W2, W3, x):
    return layer(W3, layer(W2, layer(W1, x)))
