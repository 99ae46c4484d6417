import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

_cp = jax.checkpoint_policies
_POLICY = _cp.save_from_both_policies(_cp.dots_with_no_batch_dims_saveable, _cp.save_only_these_names("gate"))


def _block(w1, w2, x):
    a = x @ w1
    gate = checkpoint_name(jax.nn.sigmoid(a), "gate")
    return jnp.sum(jnp.sin((gate * a) @ w2))


def gated_block(w1, w2, x):
    return jax.checkpoint(_block, policy=_POLICY)(w1, w2, x)
