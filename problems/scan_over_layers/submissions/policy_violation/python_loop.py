import jax
import jax.numpy as jnp

layer = jax.checkpoint(lambda h, W: jnp.tanh(h @ W), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)


def scanned_mlp(Ws, x):
    h = x
    for i in range(Ws.shape[0]):
        h = layer(h, Ws[i])
    return jnp.sum(h ** 2)
