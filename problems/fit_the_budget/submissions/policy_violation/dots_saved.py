import jax
import jax.numpy as jnp


def block(h, layer):
    w_in, w_out = layer
    return h + jnp.tanh(h @ w_in) @ w_out, None


def train_loss(W_in, W_out, x, y):
    # a policy instead of a placement: keeps every product of every block, and peaks higher
    loss = jax.checkpoint(_loss, policy=jax.checkpoint_policies.dots_saveable)
    return loss(W_in, W_out, x, y)


def _loss(W_in, W_out, x, y):
    h, _ = jax.lax.scan(block, x, (W_in, W_out))
    return jnp.mean((h - y) ** 2)
