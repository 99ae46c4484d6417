"""Attacks: the cost walk, with an operation it took for data movement. An accepted solution
(31.0 M FLOPs), then 300 draws of 16,384 random words from ``lax.rng_bit_generator``, each keyed
by the last, multiplied by zero. Drawing random bits is arithmetic (XLA counts one operation per
word drawn, and runs some forty on this CPU): counted as free, the step stayed at 31.0 M and
passed the 32.5 M FLOP limit; counted per word, 35.9 M, over it.
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

    def burn(_, carry):
        key, total = carry
        key, bits = jax.lax.rng_bit_generator(key, (64, 256), dtype=jnp.uint32)
        return key, total + (bits[0, 0] & 1)

    _, total = jax.lax.fori_loop(0, 300, burn, (jnp.zeros((4,), jnp.uint32), jnp.uint32(0)))
    return jnp.mean((h - y) ** 2) + 0.0 * total.astype(jnp.float32)
