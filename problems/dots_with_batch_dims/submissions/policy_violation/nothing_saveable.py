import jax
import jax.numpy as jnp


def _block(q, k, v, Wo):
    scores = jnp.einsum("btd,bsd->bts", q, k)
    weights = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bts,bsd->btd", weights, v)
    return jnp.sum(jnp.tanh(out @ Wo))


def attention_block(q, k, v, Wo):
    return jax.checkpoint(_block, policy=jax.checkpoint_policies.nothing_saveable)(q, k, v, Wo)
