"""Legitimate: the halving recursion written as a recursive function of (value, links), under
``jax.jit`` with ``depth`` static.
"""
from functools import partial

import jax
import jax.numpy as jnp


def apply(v, n):
    if n <= 2:
        for _ in range(n):
            v = jnp.sin(v)
        return v
    head = jax.checkpoint(partial(apply, n=n // 2))
    return apply(head(v), n - n // 2)


@partial(jax.jit, static_argnums=1)
def sin_chain(x, depth):
    return apply(x, depth)
