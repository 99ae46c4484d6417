"""Attacks: one trace per case (issue 10, item 1).

The counter is an ``itertools.count`` at module level: ``next`` numbers the traces. Calls 3 and 4
(the cost traces of the judge of f4a8146) see a program that does almost nothing; the real one
checkpoints every layer and peaks above the budget.
"""
import itertools

import jax
import jax.numpy as jnp

ticket = itertools.count(1)


def train_loss(Ws, x, y):
    number = next(ticket)
    h = x
    if number in (3, 4):
        return jnp.mean((h - y) ** 2) + 0.0 * Ws.sum()
    for i in range(7):
        h = jax.checkpoint(lambda h, w: jnp.tanh(h @ w))(h, Ws[i])
    return jnp.mean((jnp.tanh(h @ Ws[7]) - y) ** 2)
