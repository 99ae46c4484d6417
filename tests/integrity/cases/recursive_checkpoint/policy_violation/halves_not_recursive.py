"""Attacks: a rule weaker than its statement (issue 10, item 6).

Two halves, each checkpointed, with a token nested checkpoint inside the first: it keeps few
residuals, but each half (depth / 2 links) is recomputed at once on the way back, so its peak
grows linearly with the depth, unlike the halving recursion.
"""
import jax
import jax.numpy as jnp


def sin_chain(x, depth):
    def half(v, n):
        for _ in range(n):
            v = jnp.sin(v)
        return v

    first = jax.checkpoint(lambda v: jax.checkpoint(jnp.sin)(half(v, depth // 2 - 1)))
    second = jax.checkpoint(lambda v: half(v, depth - depth // 2))
    return second(first(x))
