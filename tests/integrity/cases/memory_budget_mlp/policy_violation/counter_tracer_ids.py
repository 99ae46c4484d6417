"""Attacks: one trace per case (issue 10, item 1).

No integer counter: the program keeps every argument it was called with and compares the new
one's ``id`` with theirs, so it knows how many traces came before. The third and fourth (the cost
traces of the judge of f4a8146) get a program without the layers; the real one checkpoints every
layer and peaks above the budget.
"""
import jax
import jax.numpy as jnp

held = []


def train_loss(Ws, x, y):
    if all(id(Ws) != id(other) for other in held):
        held.append(Ws)
    if len(held) in (3, 4):
        return jnp.mean((x - y) ** 2) + 0.0 * Ws[0, 0, 0]
    h = x
    for i in range(7):
        h = jax.checkpoint(lambda h, w: jnp.tanh(h @ w))(h, Ws[i])
    return jnp.mean((jnp.tanh(h @ Ws[7]) - y) ** 2)
