import jax
import jax.numpy as jnp


def _build(funs):
    if len(funs) == 1:
        return funs[0]
    if len(funs) == 2:
        first, second = funs
        return lambda v: second(first(v))
    head = _build(funs[: len(funs) // 2])
    tail = _build(funs[len(funs) // 2:])
    return lambda v: tail(jax.checkpoint(head)(v))


def sin_chain(x, depth):
    return _build([jnp.sin] * depth)(x)
