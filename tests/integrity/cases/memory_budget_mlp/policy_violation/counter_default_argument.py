"""Attacks: one trace per case (issue 10, item 1).

A mutable default argument keeps the count between traces. Traces 3 and 4 (the cost traces of
the judge of f4a8146) see a tiny program; the real one checkpoints every layer and peaks above
the budget.
"""
import jax
import jax.numpy as jnp


def train_loss(Ws, x, y, state=[]):
    state.append(len(state) + 1)
    if state[-1] in (3, 4):
        return jnp.mean((x - y) ** 2) + 0.0 * Ws[0, 0, 0]
    h = x
    for i in range(7):
        h = jax.checkpoint(lambda h, w: jnp.tanh(h @ w))(h, Ws[i])
    return jnp.mean((jnp.tanh(h @ Ws[7]) - y) ** 2)
