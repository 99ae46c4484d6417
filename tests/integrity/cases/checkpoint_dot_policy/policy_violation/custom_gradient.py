"""Attacks: custom derivatives treated alike (issue 10, item 4).

``jax.custom_gradient`` builds a ``custom_vjp`` inside JAX's own code from the submission's
function: the derivative is still hand-written. Refused before (as a custom_vjp) and after.
"""
import jax
import jax.numpy as jnp


@jax.custom_gradient
def checkpoint_dot_policy(w1, w2, x):
    a = x @ w1
    h = jax.nn.relu(a)
    z = h @ w2

    def backward(g):
        dz = 2.0 * z * g
        dh = dz @ w2.T
        da = jnp.where(a > 0, dh, 0.0)
        return x.T @ da, h.T @ dz, da @ w1.T

    return jnp.sum(z ** 2), backward
