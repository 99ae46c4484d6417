"""Attacks: the cost walk. An accepted solution, then 300 more matrix products in a while_loop whose
bound is computed from the data, so the program does not show its number of trips (the walk once
counted such a loop as one trip, and 315 M FLOPs passed a 32.5 M limit). On a problem whose limit is
on FLOPs, a loop the judge cannot count is refused, saying so.
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
    trips = (jnp.sum(x) * 0).astype(jnp.int32) + 300
    W = jax.lax.stop_gradient(Ws[0])

    def burn(carry):
        i, z = carry
        return i + 1, jnp.tanh(z @ W)

    _, z = jax.lax.while_loop(lambda c: c[0] < trips, burn, (0, jax.lax.stop_gradient(h)))
    return jnp.mean((h - y) ** 2) + 0.0 * jnp.mean(z)
