"""Attacks: custom derivatives treated alike (issue 10, item 4).

The entry point is a ``jax.custom_jvp`` whose primal function is the honest checkpoint (what the
judge of f4a8146 read for the structure) while differentiation runs the hand-written rule: a
program without the required policy that keeps the two products by plain autodiff and marks them
as a policy would (accepted by that judge).
"""
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
nothing = jax.checkpoint_policies.nothing_saveable


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def by_hand(w1, w2, x):
    a = jax.lax.reduce_precision(x @ w1, 8, 23)
    z = jax.checkpoint(lambda a, w2: jax.nn.relu(a) @ w2, policy=nothing)(a, w2)
    z = jax.lax.reduce_precision(z, 8, 23)
    return jnp.sum(z * z)


@jax.custom_jvp
def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)


@checkpoint_dot_policy.defjvp
def rule(primals, tangents):
    return jax.jvp(by_hand, primals, tangents)
