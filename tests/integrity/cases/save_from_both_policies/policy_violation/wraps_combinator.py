"""Attacks: policies known by identity (issue 10, item 3).

``functools.wraps`` copies ``__module__`` and ``__qualname__`` of JAX's ``save_from_both_policies``
combinator onto the submission's own policy, whose closure holds variables named ``policy_1`` and
``policy_2``: the judge of f4a8146 recognised combinators by those names and read the two policies
from the closure, so this was taken for the required combinator. It really runs ``dots_saveable``
(not the no-batch variant) or the name ``gate``, which save the same values on this program.
"""
import functools

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies
required = cp.save_from_both_policies(cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("gate"))


def disguise(policy_1, policy_2):
    @functools.wraps(required)
    def policy(prim, *args, **params):
        unused = (policy_1, policy_2)
        return cp.dots_saveable(prim, *args, **params) or (prim.name == "name" and params["name"] == "gate")

    return policy


def block(w1, w2, x):
    a = x @ w1
    gate = checkpoint_name(jax.nn.sigmoid(a), "gate")
    return jnp.sum(jnp.sin((gate * a) @ w2))


def gated_block(w1, w2, x):
    policy = disguise(cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("gate"))
    return jax.checkpoint(block, policy=policy)(w1, w2, x)
