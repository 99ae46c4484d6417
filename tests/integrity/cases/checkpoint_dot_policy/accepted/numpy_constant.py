"""Legitimate (issue 10, item 7): a constant built with numpy (a scale folded into the loss).
A constant is not a residual any policy decides; the judge of f4a8146 reported it as a value
"the policy recomputes" that the code saved.
"""
import jax
import jax.numpy as jnp
import numpy as np

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
ONE = np.ones((), np.float32)


def pipeline(w1, w2, x):
    h = jax.nn.relu(x @ w1)
    z = (h @ w2) * np.full(w2.shape[1], ONE, np.float32)
    return jnp.sum(z ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
