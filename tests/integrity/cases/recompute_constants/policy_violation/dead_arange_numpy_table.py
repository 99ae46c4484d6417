"""Attacks: a rule decided by syntax (issue 21, item 2).

A dead ``0 * jnp.arange(T)`` inside the checkpoint met the rule "the checkpoint encloses iota",
while the decay table itself is a numpy constant built outside, kept for the backward pass instead
of being rebuilt. The values the verifier's run keeps include that table (the same on every
input: a constant, which this problem counts), and the reference keeps none.
"""
import jax
import jax.numpy as jnp
import numpy as np

GAMMA = 0.9


def _table(T):
    i = np.arange(T)
    gap = (i[:, None] - i[None, :]).astype(np.float32)
    return np.where(gap >= 0, GAMMA ** gap, 0.0).astype(np.float32)


def retention(x, Wq, Wk, Wv):
    D = _table(x.shape[0])

    def body(x, Wq, Wk, Wv):
        dead = 0 * jnp.arange(x.shape[0])
        q, k, v = x @ Wq, x @ Wk, x @ Wv
        return jnp.sum(jnp.tanh(((q @ k.T) * (D + dead[0])) @ v))

    return jax.checkpoint(body)(x, Wq, Wk, Wv)
