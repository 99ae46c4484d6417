import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


# Names without a checkpoint: nothing reads them, and plain reverse mode keeps what it likes.
def offload_names(w1, w2, w3, x):
    h1 = checkpoint_name(x @ w1, "h1")
    h2 = checkpoint_name(jnp.sin(h1) @ w2, "h2")
    logits = checkpoint_name(jnp.tanh(h2) @ w3, "logits")
    return jnp.sum(logits ** 2)
