import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def _layers(w1, w2, w3, x):
    h1 = checkpoint_name(x @ w1, "h1")
    h2 = checkpoint_name(jnp.sin(h1) @ w2, "h2")
    logits = checkpoint_name(jnp.tanh(h2) @ w3, "logits")
    return jnp.sum(logits ** 2)


def offload_names(w1, w2, w3, x):
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["h2"], names_which_can_be_offloaded=["h1"],
        offload_src="pinned_host", offload_dst="device")
    return jax.checkpoint(_layers, policy=policy)(w1, w2, w3, x)
