"""Attacks: policies known by identity (issue 10, item 3).

A closure whose variables are named ``policy_1`` and ``policy_2`` and whose function is named
like JAX's, without copying the module: names are not identity. Refused before and after.
"""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies


def save_from_both_policies(policy_1, policy_2):
    def policy(prim, *args, **params):
        return policy_1(prim, *args, **params) or policy_2(prim, *args, **params)

    return policy


POLICY = save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("gate"))


def block(w1, w2, x):
    a = x @ w1
    gate = checkpoint_name(jax.nn.sigmoid(a), "gate")
    return jnp.sum(jnp.sin((gate * a) @ w2))


def gated_block(w1, w2, x):
    return jax.checkpoint(block, policy=POLICY)(w1, w2, x)
