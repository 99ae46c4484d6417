from functools import partial

import jax
import jax.numpy as jnp


# dots_saveable: every matrix product is saved, batched or not. On this MLP no product has batch
# dimensions, so it keeps the same values as the required policy, and the judge still refuses it.
@partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_saveable)
def checkpoint_dot_policy(w1, w2, x):
    y = jnp.maximum(jnp.dot(x, w1), 0.0)
    z = jnp.dot(y, w2)
    return jnp.sum(z * z)
