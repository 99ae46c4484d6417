"""Legitimate: the combinator built by the submission from JAX's own policies, in the other
order, with an alias, inside a jitted function: the same policy (issue 10, item 3 must not refuse
it).
"""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies


def block(w1, w2, x):
    a = x @ w1
    gate = checkpoint_name(jax.nn.sigmoid(a), "gate")
    return jnp.sum(jnp.sin((gate * a) @ w2))


@jax.jit
def gated_block(w1, w2, x):
    policy = cp.save_from_both_policies(cp.save_only_these_names("gate"), cp.checkpoint_dots_with_no_batch_dims)
    return jax.checkpoint(block, policy=policy)(w1, w2, x)
