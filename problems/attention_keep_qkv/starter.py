import math

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def attention_block(x, Wq, Wk, Wv, Wo):
    # Project x to q, k, v (name them), attend, project back with Wo, then sum(tanh(...)).
    # Checkpoint the block so that only q, k and v are kept for the backward pass.
    raise NotImplementedError
