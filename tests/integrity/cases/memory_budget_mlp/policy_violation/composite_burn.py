"""Attacks: the cost walk. An accepted solution, then 100 more matrix products wrapped in one
lax.composite, which the walk once counted as one operation per element it makes. A composite
costs what its decomposition runs.
"""
import jax
import jax.numpy as jnp


def _segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(h @ Ws[i])
    return h


def _burn(z, W):
    for _ in range(100):
        z = jnp.tanh(z @ W)
    return z


def train_loss(Ws, x, y):
    h = x
    for start in (0, 2, 4):
        h = jax.checkpoint(_segment)(h, Ws[start:start + 2])
    h = _segment(h, Ws[6:])
    z = jax.lax.composite(_burn, name="arena.burn")(jax.lax.stop_gradient(h), jax.lax.stop_gradient(Ws[0]))
    return jnp.mean((h - y) ** 2) + 0.0 * jnp.mean(z)
