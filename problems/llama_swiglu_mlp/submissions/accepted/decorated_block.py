from functools import partial

import jax
from jax.ad_checkpoint import checkpoint_name


# The policy on a decorator: the block is checkpointed wherever it is called.
@partial(jax.checkpoint, policy=jax.checkpoint_policies.save_only_these_names("gate", "up"))
def swiglu_mlp(w_gate, w_up, w_down, x):
    gate = checkpoint_name(jax.numpy.dot(x, w_gate), "gate")
    up = checkpoint_name(jax.numpy.dot(x, w_up), "up")
    hidden = gate * jax.nn.sigmoid(gate) * up
    return x + hidden @ w_down
