import jax
import jax.numpy as jnp

keep_products = jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims


@jax.jit
def features(W1, W2, x):
    def branch(W1, W2, x):
        return jnp.sin(jnp.einsum("bh,hd->bd", jnp.tanh(jnp.einsum("bd,dh->bh", x, W1)), W2))

    return x + jax.remat(branch, policy=keep_products)(W1, W2, x)
