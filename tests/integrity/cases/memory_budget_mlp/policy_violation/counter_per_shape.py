"""Attacks: one trace per case (issue 10, item 1).

Counts its calls per input shape in a module-level dict (the state survives between traces of
one grading), and shows the tiny program to the calls after the first two of a shape, which
were the cost traces of the judge of f4a8146. Every layer is checkpointed otherwise: too much
memory at peak.
"""
import jax
import jax.numpy as jnp

seen = {}


def train_loss(Ws, x, y):
    seen[Ws.shape] = seen.get(Ws.shape, 0) + 1
    if seen[Ws.shape] in (3, 4):
        return jnp.mean(jnp.square(x - y)) + 0.0 * jnp.sum(Ws[0])
    h = x
    for i in range(7):
        h = jax.checkpoint(lambda h, w: jnp.tanh(h @ w))(h, Ws[i])
    h = jnp.tanh(h @ Ws[7])
    return jnp.mean((h - y) ** 2)
