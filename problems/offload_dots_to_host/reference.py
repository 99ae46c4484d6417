import jax
import jax.numpy as jnp


def _block(w1, w2, x):
    hidden = jnp.tanh(x @ w1)
    return jnp.sum(jax.nn.relu(hidden @ w2) ** 2)


def offload_mlp(w1, w2, x):
    policy = jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")
    return jax.checkpoint(_block, policy=policy)(w1, w2, x)
