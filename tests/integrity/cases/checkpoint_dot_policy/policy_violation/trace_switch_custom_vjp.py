"""Attacks: a trace switch (issue 21, item 5).

The entry point remembers the shapes it has seen: the first time a shape comes back after another
one, it returns a hand-written ``custom_vjp`` (no checkpoint, keeping the two products by hand)
instead of the honest checkpoint. Whatever a trace shows, the source writes a hand-written backward
rule, which the parent reads without running it.
"""
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
seen = []


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


@jax.custom_vjp
def by_hand(w1, w2, x):
    return pipeline(w1, w2, x)


def by_hand_fwd(w1, w2, x):
    a = x @ w1
    z = jax.nn.relu(a) @ w2
    return jnp.sum(z ** 2), (a, z, w1, w2, x)


def by_hand_bwd(saved, g):
    a, z, w1, w2, x = saved
    h = jax.nn.relu(a)
    dz = 2.0 * z * g
    dh = dz @ w2.T
    da = jnp.where(a > 0, dh, 0.0)
    return x.T @ da, h.T @ dz, da @ w1.T


by_hand.defvjp(by_hand_fwd, by_hand_bwd)


def checkpoint_dot_policy(w1, w2, x):
    shape = x.shape
    switch = shape in seen and seen[-1] != shape
    seen.append(shape)
    if switch:
        return by_hand(w1, w2, x)
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
