import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def my_policy(prim, *_, **params):
    # Return True when the output of `prim` may be saved.
    return True


def keep_all_but_big(W1, W2, W3, x):
    raise NotImplementedError
