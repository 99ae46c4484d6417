"""Attacks: policies known by identity (issue 10, item 3).

The same disguise with ``functools.update_wrapper`` on a lambda that closes over ``policy_1`` and
``policy_2``: a combinator's name and closure are not its identity. The lambda saves every dot
product and the name ``gate`` (accepted by the judge of f4a8146).
"""
import functools

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies


def make(policy_1, policy_2):
    policy = lambda prim, *args, **params: (policy_1, policy_2) and (  # noqa: E731
        prim.name == "dot_general" or (prim.name == "name" and params["name"] == "gate"))
    return functools.update_wrapper(policy, cp.save_from_both_policies(policy_1, policy_2))


POLICY = make(cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("gate"))


def block(w1, w2, x):
    a = x @ w1
    gate = checkpoint_name(jax.nn.sigmoid(a), "gate")
    return jnp.sum(jnp.sin((gate * a) @ w2))


def gated_block(w1, w2, x):
    return jax.checkpoint(block, policy=POLICY)(w1, w2, x)
