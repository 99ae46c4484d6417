import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def net(W1, W2, W3, x):
    layer1 = checkpoint_name(jnp.sin(x @ W1), "layer1")
    layer2 = checkpoint_name(jnp.sin(layer1 @ W2), "layer2")
    layer3 = checkpoint_name(jnp.sin(layer2 @ W3), "layer3")
    return jnp.sum(layer3 ** 2)


def three_named_layers(W1, W2, W3, x):
    return jax.checkpoint(net, policy=jax.checkpoint_policies.dots_saveable)(W1, W2, W3, x)
