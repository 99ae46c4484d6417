"""Attacks: policies known by identity (issue 10, item 3).

A ``DotsSaveable`` made by the submission, whose field compares equal to ``True`` (and only to it) but is falsy:
the judge of f4a8146 compared it with JAX's own no-batch policy by dataclass equality and took it
for ``dots_with_no_batch_dims_saveable``, while JAX, testing the field's truth, runs it as
``dots_saveable`` (which also saves products with batch axes). On this program the two save the
same values, so only the policy's identity tells them apart.
"""
import jax
import jax.numpy as jnp

Truthy = type("Truthy", (), {"__eq__": lambda self, other: other is True, "__bool__": lambda self: False,
                             "__hash__": lambda self: 1})
policy = type(jax.checkpoint_policies.dots_saveable)(Truthy())


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
