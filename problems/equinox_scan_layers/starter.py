import equinox as eqx
import jax
import jax.numpy as jnp


def loss(blocks, x):
    # blocks: L Equinox residual blocks stacked along a leading axis; each maps (d,) -> (d,).
    # Scan over the layers with a checkpointed step (eqx.partition / eqx.combine help).
    h = x
    for i in range(blocks.linear.weight.shape[0]):
        block = jax.tree_util.tree_map(lambda leaf: leaf[i] if eqx.is_array(leaf) else leaf, blocks)
        h = jax.vmap(block)(h)
    return jnp.mean(h ** 2)
