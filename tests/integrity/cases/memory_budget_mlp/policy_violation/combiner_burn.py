"""Attacks: the cost walk, with a function of its own inside a reduction. An accepted solution
(31.0 M FLOPs), then 120 reductions of a 64-by-64 array whose combiner runs 41 operations per
element it combines, multiplied by zero. ``lax.reduce`` takes any function: counted as one
operation per element combined, as a sum is, the step came to 31.9 M and passed the 32.5 M FLOP
limit; counted by what its combiner runs each time, 51.3 M, over it.
"""
import jax
import jax.numpy as jnp


def _segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(h @ Ws[i])
    return h


def _combine(a, b):
    for _ in range(10):
        b = jnp.sin(b) * jnp.cos(a) + b
    return a + b


def train_loss(Ws, x, y):
    h = x
    for start in (0, 2, 4):
        h = jax.checkpoint(_segment)(h, Ws[start:start + 2])
    h = _segment(h, Ws[6:])
    W = jax.lax.stop_gradient(Ws[0])

    def burn(_, s):
        return jax.lax.reduce(W + 1e-3 * s, 0.0, _combine, (1,))

    s = jax.lax.fori_loop(0, 120, burn, jnp.zeros(W.shape[0]))
    return jnp.mean((h - y) ** 2) + 0.0 * jnp.sum(s)
