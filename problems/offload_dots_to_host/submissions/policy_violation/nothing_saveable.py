import jax
import jax.numpy as jnp


# Recomputes the two products instead of fetching them back from the host.
def offload_mlp(w1, w2, x):
    def block(w1, w2, x):
        hidden = jnp.tanh(x @ w1)
        return jnp.sum(jax.nn.relu(hidden @ w2) ** 2)

    return jax.checkpoint(block, policy=jax.checkpoint_policies.nothing_saveable)(w1, w2, x)
