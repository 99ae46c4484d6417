"""Attacks: a rule weaker than its statement (issue 10, item 6).

The whole chain checkpointed, with two token levels of nesting around its last two links: deep
enough for the old depth rule, still linear memory on the backward pass.
"""
import jax
import jax.numpy as jnp


def sin_chain(x, depth):
    def tail(v):
        return jax.checkpoint(jnp.sin)(jnp.sin(v))

    def chain(v):
        for _ in range(depth - 2):
            v = jnp.sin(v)
        return jax.checkpoint(tail)(v)

    return jax.checkpoint(chain)(x)
