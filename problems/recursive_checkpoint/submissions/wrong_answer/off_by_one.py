import jax
import jax.numpy as jnp


def _build(funs):
    if len(funs) <= 2:
        return lambda v: funs[-1](funs[0](v)) if len(funs) == 2 else funs[0](v)
    head = _build(funs[: len(funs) // 2])
    tail = _build(funs[len(funs) // 2:])
    return lambda v: tail(jax.checkpoint(head)(v))


def sin_chain(x, depth):
    return _build([jnp.sin] * (depth - 1))(x)
