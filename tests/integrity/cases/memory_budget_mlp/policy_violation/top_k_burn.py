"""Attacks: the cost walk, with an operation of its own. An accepted solution (31.0 M FLOPs), then
300 selections of the largest value of each row of a 64-by-256 array, each fed by the last,
multiplied by zero. ``lax.top_k`` is neither elementwise nor an operation the walk has a rule for:
counted as one operation per value it returns (two a row, the value and its index), the step would
come to 32.2 M and pass the 32.5 M FLOP limit, while each selection weighs every element of its
rows. The exported program carries it as a composite whose decomposition sorts each row, and the
walk counts what the decomposition runs (n log2 n comparisons a row, 131 K a selection): 71.5 M,
over the limit.
"""
import jax
import jax.numpy as jnp


def _segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(h @ Ws[i])
    return h


def train_loss(Ws, x, y):
    h = x
    for start in (0, 2, 4):
        h = jax.checkpoint(_segment)(h, Ws[start:start + 2])
    h = _segment(h, Ws[6:])
    W = jax.lax.stop_gradient(Ws[0])

    def burn(_, s):
        wide = jnp.tile(W + 1e-3 * s[0], (1, 4))
        return jax.lax.top_k(wide, 1)[0][:, 0]

    s = jax.lax.fori_loop(0, 300, burn, jnp.zeros(W.shape[0]))
    return jnp.mean((h - y) ** 2) + 0.0 * jnp.sum(s)
