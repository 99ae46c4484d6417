import jax
import jax.numpy as jnp


# The factory itself passed as the policy: JAX calls it on each operation and gets a function back.
def offload_mlp(w1, w2, x):
    def block(w1, w2, x):
        hidden = jnp.tanh(x @ w1)
        return jnp.sum(jax.nn.relu(hidden @ w2) ** 2)

    policy = jax.checkpoint_policies.offload_dot_with_no_batch_dims
    return jax.checkpoint(block, policy=policy)(w1, w2, x)
