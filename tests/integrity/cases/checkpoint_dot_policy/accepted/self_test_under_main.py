"""Legitimate: a correct solution with a self-test that runs only when the file is run as a script.
The self-test's bare jax.checkpoint never reaches the traced program (the judge loads the module
under another name), so it is not judged: the source reader once refused this with "your
jax.checkpoint uses no policy".
"""
import jax
import jax.numpy as jnp


def _pipeline(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(_pipeline, policy=policy)(w1, w2, x)


if __name__ == "__main__":
    w1, w2, x = jnp.ones((4, 4)), jnp.ones((4, 4)), jnp.ones((2, 4))
    print(jax.grad(jax.checkpoint(_pipeline))(w1, w2, x))
