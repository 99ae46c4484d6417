"""Legitimate: the reference's plan (three checkpointed pairs of layers, then two plain layers)
with every matrix product written as a 1x1 convolution. It costs exactly the FLOPs of the
reference's matrix products, and is ranked as the reference is."""
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


def train_loss(Ws, x, y):
    h = x
    for start in (0, 2, 4):
        h = jax.checkpoint(segment)(h, Ws[start:start + 2])
    h = segment(h, Ws[6:])
    return jnp.mean((h - y) ** 2)
