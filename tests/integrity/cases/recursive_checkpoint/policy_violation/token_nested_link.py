"""Attacks: a rule weaker than its statement (issue 10, item 6).

One checkpoint around the whole chain, with a token checkpoint around one link nested inside it:
the checkpoints are "nested" and only ``x`` is saved, so the judge of f4a8146 accepted it, but
the backward pass recomputes the whole chain at once and keeps every link alive: memory grows
linearly with the depth, which the statement says it rejects.
"""
import jax
import jax.numpy as jnp


def sin_chain(x, depth):
    def chain(v):
        v = jax.checkpoint(jnp.sin)(v)
        for _ in range(depth - 1):
            v = jnp.sin(v)
        return v

    return jax.checkpoint(chain)(x)
