import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

keep_h2_offload_h1 = jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=["h2"], names_which_can_be_offloaded=["h1"],
    offload_src="device", offload_dst="pinned_host")


def layers(w1, w2, w3, x):
    h1 = checkpoint_name(x @ w1, "h1")
    h2 = checkpoint_name(jnp.sin(h1) @ w2, "h2")
    logits = jnp.tanh(h2) @ w3  # a name in neither list and no name at all: both recomputed
    return jnp.sum(logits * logits)


@jax.jit
def offload_names(w1, w2, w3, x):
    return jax.checkpoint(layers, policy=keep_h2_offload_h1)(w1, w2, w3, x)
