"""Attacks: policies known by identity (issue 10, item 3).

The same disguise with ``functools.update_wrapper`` on a lambda that closes over ``policy_1`` and
``policy_2``: a combinator's name and closure are not its identity. The lambda saves every dot
product and the name ``gate`` (accepted by the judge of f4a8146).

Graded past the gate: as sent, the gate refuses ``update_wrapper`` and dunder attributes; past
it, the run-time guard has no ``update_wrapper`` either, so the disguise is copied by hand, and
only the policy's identity check stands in the way.
"""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies


def make(policy_1, policy_2):
    policy = lambda prim, *args, **params: (policy_1, policy_2) and (  # noqa: E731
        prim.name == "dot_general" or (prim.name == "name" and params["name"] == "gate"))
    original = cp.save_from_both_policies(policy_1, policy_2)
    policy.__module__, policy.__name__ = original.__module__, original.__name__
    policy.__qualname__, policy.__doc__ = original.__qualname__, original.__doc__
    policy.__wrapped__ = original
    return policy


POLICY = make(cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("gate"))


def block(w1, w2, x):
    a = x @ w1
    gate = checkpoint_name(jax.nn.sigmoid(a), "gate")
    return jnp.sum(jnp.sin((gate * a) @ w2))


def gated_block(w1, w2, x):
    return jax.checkpoint(block, policy=POLICY)(w1, w2, x)
