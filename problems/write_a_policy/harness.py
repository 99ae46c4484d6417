# The programs the learner's policy is tried on. This file is part of the problem: it runs the
# same way for the reference policy and for the learner's, and the judge compares what each
# lets the backward pass keep.
import jax
import jax.numpy as jnp


def _programs(a, b, c):
    hidden = jnp.tanh(a @ b)                                  # (P, R), no batch axes
    head = jnp.sum(jnp.sin(hidden @ c))                       # (P, S)
    gram = jnp.einsum("pq,sq->ps", a, a)                      # (P, P)
    halves = a.reshape(2, a.shape[0] // 2, a.shape[1])
    pairs = jnp.einsum("bij,bkj->bik", halves, halves)        # (2, P/2, P/2), batched
    tail = jnp.sum(jnp.tanh(b @ c))                           # (Q, S): any size, odd ones too
    return head + jnp.sum(jnp.exp(-gram * gram)) + jnp.sum(jnp.cos(pairs)) + tail


def run(policy, a, b, c):
    return jax.checkpoint(_programs, policy=policy)(a, b, c)
