import jax
import jax.numpy as jnp


def block(h, layer):
    w_in, w_out = layer
    return h + jnp.tanh(h @ w_in) @ w_out, None


@jax.checkpoint
def segment(h, part):
    return jax.lax.scan(block, h, part)


def train_loss(W_in, W_out, x, y):
    # the placement that holds least between the passes: read off the wrong column
    parts = jax.tree.map(lambda a: a.reshape(-1, 4, *a.shape[1:]), (W_in, W_out))
    h, _ = jax.lax.scan(segment, x, parts)
    return jnp.mean((h - y) ** 2)
