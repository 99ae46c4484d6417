import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


@jax.jit
def named_block(w1, w2, x):
    def block(w1, w2, x):
        hidden = checkpoint_name(jnp.tanh(jnp.einsum("bd,dh->bh", x, w1)), name="hidden")
        return jnp.sin(jnp.einsum("bh,hd->bd", hidden, w2)).sum()

    return jax.remat(block, policy=jax.checkpoint_policies.save_only_these_names("hidden"))(w1, w2, x)
