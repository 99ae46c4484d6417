import jax
import jax.numpy as jnp


# The right products, kept in the wrong place: on the device, next to everything else.
def offload_mlp(w1, w2, x):
    def block(w1, w2, x):
        hidden = jnp.tanh(x @ w1)
        return jnp.sum(jax.nn.relu(hidden @ w2) ** 2)

    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(block, policy=policy)(w1, w2, x)
