"""Attacks: policies known by identity (issue 10, item 3).

A ``DotsSaveable`` made by the submission, whose field compares equal to ``True`` (and only to it) but is falsy:
the judge of f4a8146 compared it with JAX's own no-batch policy by dataclass equality and took it
for ``dots_with_no_batch_dims_saveable``, while JAX, testing the field's truth, runs it as
``dots_saveable`` (which also saves products with batch axes). On this program the two save the
same values, so only the policy's identity tells them apart.

Graded past the gate: as sent, the gate refuses the dunder methods (and three-argument ``type()``,
the other way to write them); past it, only the policy's identity check stands in the way.
"""
import jax
import jax.numpy as jnp


class Truthy:
    def __eq__(self, other):
        return other is True

    def __bool__(self):
        return False

    def __hash__(self):
        return 1


policy = type(jax.checkpoint_policies.dots_saveable)(Truthy())


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
