"""Attacks: the FLOP ceiling, by hiding recomputation where the count says no work is done.
The nested plan (segments of four layers, each rebuilt from two nested segments of two: the first
layers recomputed twice) with every matrix product a convolution along the batch, padded and
dilated: the batch's rows sit between holes, and the padding is wider than the kernel. The taps
that fall on a hole or on the padding multiply nothing and are not counted, but every product
with a real row is: 37 M FLOPs against the 32.5 M allowed."""
import jax
import jax.numpy as jnp

PAD = 8


def dense(h, W):
    """h @ W as a one-tap convolution along the batch, its rows two positions apart (lhs_dilation)
    and eight positions of padding each side; the outputs on holes and padding are cut off."""
    out = jax.lax.conv_general_dilated(
        h[None], W[None], (1,), ((PAD, PAD),), lhs_dilation=(2,), dimension_numbers=("NWC", "WIO", "NWC")
    )
    return out[0, PAD:-PAD:2]


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
