"""Attacks: one trace per case (issue 10, item 1).

A module-level list counts the calls of the entry point. The judge of f4a8146 traced each case
for the structure (call 1), the residuals (call 2), the cost (calls 3 and 4) and the export
(calls 5 and 6, one per case); this program shows the cost trace a tiny program, so the peak memory and FLOPs the
judge measured were invented, while the program it exported (and the learner runs) checkpoints
every layer, which keeps every layer's input and peaks above the budget.
"""
import jax
import jax.numpy as jnp

calls = []


def segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(h @ Ws[i])
    return h


def train_loss(Ws, x, y):
    calls.append(None)
    if len(calls) in (3, 4):  # what the cost traces see
        return jnp.mean((x - y) ** 2) + 0.0 * Ws[0, 0, 0]
    h = x
    for i in range(7):
        h = jax.checkpoint(segment)(h, Ws[i:i + 1])
    h = segment(h, Ws[7:])
    return jnp.mean((h - y) ** 2)
