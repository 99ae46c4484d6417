"""Attacks: the cost walk. An accepted solution, then 60 singular value decompositions of a 64-by-64
matrix, each fed by the last, multiplied by zero. Each runs as one call into LAPACK
(``lapack_sgesdd_ffi``), whose work is not in the program; the walk once counted such a call as one
operation per element it made (64 each, where each runs some 8/3 * 64**3, about 0.7 M), and the
step, some 74 M FLOPs in all, passed a 32.5 M FLOP limit. A library call the judge cannot count is refused on a problem whose limit is on
FLOPs, naming it as the learner wrote it (jnp.linalg.svd).
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
        return jnp.linalg.svd(W + 1e-3 * s[0], compute_uv=False)

    s = jax.lax.fori_loop(0, 60, burn, jnp.zeros(W.shape[0]))
    return jnp.mean((h - y) ** 2) + 0.0 * jnp.sum(s)
