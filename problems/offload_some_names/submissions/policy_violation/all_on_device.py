import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


# Keeps both named values, both on the device: the right values, h1 in the wrong memory.
def offload_names(w1, w2, w3, x):
    def layers(w1, w2, w3, x):
        h1 = checkpoint_name(x @ w1, "h1")
        h2 = checkpoint_name(jnp.sin(h1) @ w2, "h2")
        logits = checkpoint_name(jnp.tanh(h2) @ w3, "logits")
        return jnp.sum(logits ** 2)

    policy = jax.checkpoint_policies.save_only_these_names("h1", "h2")
    return jax.checkpoint(layers, policy=policy)(w1, w2, w3, x)
