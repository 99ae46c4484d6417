import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies


def gated_block(w1, w2, x):
    # Two separate checkpoints, each with one of the policies: not the combined policy.
    def first(w1, x):
        a = x @ w1
        return a, checkpoint_name(jax.nn.sigmoid(a), "gate")

    a, gate = jax.checkpoint(first, policy=cp.save_only_these_names("gate"))(w1, x)
    tail = jax.checkpoint(lambda g, a, w2: jnp.sum(jnp.sin((g * a) @ w2)), policy=cp.dots_with_no_batch_dims_saveable)
    return tail(gate, a, w2)
