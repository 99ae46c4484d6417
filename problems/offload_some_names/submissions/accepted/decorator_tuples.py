from functools import partial

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

# Tuples instead of lists, the memories first: the same policy.
policy = jax.checkpoint_policies.save_and_offload_only_these_names(
    offload_src="device", offload_dst="pinned_host",
    names_which_can_be_offloaded=("h1",), names_which_can_be_saved=("h2",))


@partial(jax.checkpoint, policy=policy)
def offload_names(w1, w2, w3, x):
    h1 = checkpoint_name(jnp.dot(x, w1), name="h1")
    h2 = checkpoint_name(jnp.dot(jnp.sin(h1), w2), name="h2")
    return jnp.square(jnp.tanh(h2) @ w3).sum()
