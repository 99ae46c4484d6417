"""Attacks: policies known by identity (issue 10, item 3).

A subclass of JAX's ``DotsSaveable`` made by the submission: it is not the policy JAX ships (its
class was made after the judge started), whatever it compares equal to. Refused before and after.
"""
import jax
import jax.numpy as jnp


class Dots(type(jax.checkpoint_policies.dots_saveable)):
    pass


policy = Dots(True)


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
