"""Attacks: custom derivatives treated alike (issue 10, item 4).

Pairs of layers wrapped in a hand-written ``custom_vjp`` that keeps only the pair's input and
recomputes the pair in its own backward rule: it fits the budget like the reference does, but it
is not ``jax.checkpoint``, and how its derivative is computed is the submission's, invisible to
the judge. The judge of f4a8146 checked custom_vjp only on problems that name a policy, so this
was accepted (a token checkpoint meets ``min_checkpoints``).
"""
import jax
import jax.numpy as jnp


def pair(h, Ws):
    return jnp.tanh(jnp.tanh(h @ Ws[0]) @ Ws[1])


@jax.custom_vjp
def remat_pair(h, Ws):
    return pair(h, Ws)


def remat_pair_fwd(h, Ws):
    return pair(h, Ws), (h, Ws)


def remat_pair_bwd(saved, g):
    _, pullback = jax.vjp(pair, *saved)
    return pullback(g)


remat_pair.defvjp(remat_pair_fwd, remat_pair_bwd)


def train_loss(Ws, x, y):
    h = x
    for start in (0, 2, 4):
        h = remat_pair(h, Ws[start:start + 2])
    h = jax.checkpoint(lambda v: v)(pair(h, Ws[6:]))
    return jnp.mean((h - y) ** 2)
