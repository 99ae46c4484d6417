"""Attacks: provenance the learner can write, and policies known by identity (issue 10, item 4).

The required checkpoint is there and encloses both products, but it sits inside another
checkpoint whose policy, the submission's own, keeps the same products: the outer checkpoint's
policy is the one that decides what the forward pass keeps, so the required policy decides
nothing. The judge of f4a8146 refused it only because it could not tell these products were kept
by a policy; now it says which checkpoint kept them.
"""
import jax
import jax.numpy as jnp

dots = jax.checkpoint_policies.dots_with_no_batch_dims_saveable


def mine(prim, *args, **params):
    return prim.name == "dot_general"


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    inner = jax.checkpoint(pipeline, policy=dots)
    return jax.checkpoint(inner, policy=mine)(w1, w2, x)
