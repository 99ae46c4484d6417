import jax
import jax.numpy as jnp


def block(h, layer):
    w_in, w_out = layer
    return h + jnp.tanh(h @ w_in) @ w_out, None


@jax.checkpoint
def segment(h, part):
    return jax.lax.scan(jax.checkpoint(block), h, part)


def train_loss(W_in, W_out, x, y):
    # lowest peak of all, but every block runs three times: over the FLOPs budget
    parts = jax.tree.map(lambda a: a.reshape(-1, 3, *a.shape[1:]), (W_in, W_out))
    h, _ = jax.lax.scan(segment, x, parts)
    return jnp.mean((h - y) ** 2)
