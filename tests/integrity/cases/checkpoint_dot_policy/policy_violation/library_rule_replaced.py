"""Attacks: custom derivatives treated alike (issue 10, item 4).

``jax.nn.relu`` is a ``custom_jvp`` of JAX's own, and legitimate; this submission replaces its
rule with one of its own (``defjvps`` on JAX's object). The derivative rule that runs is then the
learner's, although the function is JAX's.
"""
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
jax.nn.relu.defjvps(lambda t, ans, v: jnp.where(v > 0, t, 0.0))


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
