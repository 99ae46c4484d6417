"""Attacks: the FLOP ceiling and the FLOPs leaderboard, by writing every matrix product as a 1x1
convolution. Segments of four layers, each rebuilt from two nested segments of two: the first
layers are recomputed twice, far more than the ceiling allows (37 M FLOPs against 32.5 M), while
residuals and peak stay within budget. When only dot_general was counted, convolutions cost
nothing and this step reported a few hundred thousand FLOPs: accepted, and first on FLOPs."""
import jax
import jax.numpy as jnp


def dense(h, W):
    """h @ W as a convolution: a batch of 1x1 images with d features, d kernels of 1x1."""
    out = jax.lax.conv_general_dilated(h[:, :, None, None], W.T[:, :, None, None], (1, 1), "VALID")
    return out[:, :, 0, 0]


def segment(h, Ws):
    for i in range(Ws.shape[0]):
        h = jnp.tanh(dense(h, Ws[i]))
    return h


def nested(h, Ws):
    half = Ws.shape[0] // 2
    h = jax.checkpoint(segment)(h, Ws[:half])
    return jax.checkpoint(segment)(h, Ws[half:])


def train_loss(Ws, x, y):
    h = jax.checkpoint(nested)(x, Ws[:4])
    h = jax.checkpoint(nested)(h, Ws[4:])
    return jnp.mean((h - y) ** 2)
