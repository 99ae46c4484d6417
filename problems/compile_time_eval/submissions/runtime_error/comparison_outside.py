from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.checkpoint, static_argnums=(3,), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
def gated_mixture(W1, W2, x, logit):
    with jax.ensure_compile_time_eval():
        alpha = jax.nn.sigmoid(logit)
    out = 0.0
    if alpha < 0.99:  # a new JAX operation, outside the block: recorded, not computed
        out = out + (1.0 - alpha) * jnp.tanh(x @ W1)
    if alpha > 0.01:
        out = out + alpha * jnp.tanh(x @ W2)
    return jnp.sum(out ** 2)
