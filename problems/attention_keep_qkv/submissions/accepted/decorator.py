import math
from functools import partial

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


@partial(jax.checkpoint, policy=jax.checkpoint_policies.save_only_these_names("q", "k", "v"))
def attention_block(x, Wq, Wk, Wv, Wo):
    q, k, v = (checkpoint_name(x @ W, name) for W, name in ((Wq, "q"), (Wk, "k"), (Wv, "v")))
    scores = (q @ k.T) / math.sqrt(q.shape[1])
    return jnp.tanh(jax.nn.softmax(scores) @ v @ Wo).sum()
