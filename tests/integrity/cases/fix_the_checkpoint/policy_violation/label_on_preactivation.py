"""Attacks: a rule decided by a label (issue 21, item 2).

"hidden" is put on the pre-activation ``x @ W1`` instead of on ``tanh`` of it: the same name, the
same type and size, so a judge that matched names and types accepted it, but the value kept is
not the one the statement asks for (the backward pass recomputes the tanh). The verifier's run
on hidden inputs compares the kept values with the reference's.
"""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def _body(W1, W2, x):
    hidden = jnp.tanh(checkpoint_name(x @ W1, "hidden"))
    return jnp.sum(jnp.sin(hidden @ W2))


def block(W1, W2, x):
    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    return jax.checkpoint(_body, policy=policy)(W1, W2, x)
