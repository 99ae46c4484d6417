import math

import jax
import jax.numpy as jnp


def gated_mixture(W1, W2, x, logit):
    # The other way the API reference suggests: decide outside the checkpoint and close over it.
    # Plain Python arithmetic on a Python float is concrete anyway.
    alpha = 1.0 / (1.0 + math.exp(-logit))

    def body(W1, W2, x):
        terms = []
        if alpha < 0.99:
            terms.append((1.0 - alpha) * jnp.tanh(x @ W1))
        if alpha > 0.01:
            terms.append(alpha * jnp.tanh(x @ W2))
        return jnp.sum(sum(terms) ** 2)

    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(body, policy=policy)(W1, W2, x)
