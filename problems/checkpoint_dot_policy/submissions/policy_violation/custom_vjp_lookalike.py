import jax
import jax.numpy as jnp


# Saves exactly the inputs and the two matmul outputs, by hand: right residuals, wrong mechanism.
@jax.custom_vjp
def checkpoint_dot_policy(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def _fwd(w1, w2, x):
    a = x @ w1
    b = jax.nn.relu(a) @ w2
    return jnp.sum(b ** 2), (w1, w2, x, a, b)


def _bwd(res, g):
    w1, w2, x, a, b = res
    db = 2.0 * b * g
    h = jax.nn.relu(a)
    dw2 = h.T @ db
    dh = db @ w2.T
    da = dh * (a > 0)
    return (x.T @ da, dw2, da @ w1.T)


checkpoint_dot_policy.defvjp(_fwd, _bwd)
