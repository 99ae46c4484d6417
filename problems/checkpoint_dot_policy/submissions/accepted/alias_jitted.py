import jax
import jax.numpy as jnp

# The alias names the same policy; jit must not change the verdict.
policy = jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims


@jax.jit
def checkpoint_dot_policy(w1, w2, x):
    def pipeline(w1, w2, x):
        y = jax.nn.relu(jnp.einsum("nd,de->ne", x, w1))
        return jnp.sum(jnp.square(y @ w2))

    return jax.remat(pipeline, policy=policy)(w1, w2, x)
