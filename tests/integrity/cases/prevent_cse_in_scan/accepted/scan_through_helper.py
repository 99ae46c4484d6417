"""Legitimate: the scanned step reaches lax.scan through a helper's parameter. The reader once lost
the scan there and reported "prevent_cse=False outside any scan".
"""
import jax
import jax.numpy as jnp


def _embed(We, x):
    return jnp.tanh(x @ We)


def _step(h, W):
    return jnp.sin(h @ W), None


def _run_scan(body, h, Ws):
    h, _ = jax.lax.scan(body, h, Ws)
    return h


def embed_then_scan(We, Ws, x):
    e = jax.checkpoint(_embed)(We, x)
    h = _run_scan(jax.checkpoint(_step, prevent_cse=False), e, Ws)
    return jnp.sum(h ** 2)
