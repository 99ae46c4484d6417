"""Attacks: one trace per case (issue 10, item 1), and a trace switch (issue 21, item 5).

Counts its calls per input shape. The judge of f4a8146 traced each case twice to inspect it
(structure, residuals) and a third time to export the program the verifier runs: this program
shows the honest checkpoint to the inspection and exports a hand-written ``custom_vjp`` that saves
the same five values, so the program that ran was not the program judged (accepted). With one
trace per case the custom_vjp never runs, but whether it would is the submission's choice: the
source writes a hand-written backward rule, and the parent, which reads the source and never runs
it, refuses that on a problem that requires a checkpoint policy (issue 21: the API the learner
used is read from the source). ``tests/integrity/test_integrity.py`` still checks that the entry
point ran once per case (it prints a line per call).
"""
import jax
import jax.numpy as jnp

seen = {}


@jax.custom_vjp
def by_hand(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def by_hand_fwd(w1, w2, x):
    a = x @ w1
    b = jax.nn.relu(a) @ w2
    return jnp.sum(b ** 2), (w1, w2, x, a, b)


def by_hand_bwd(res, g):
    w1, w2, x, a, b = res
    db = 2.0 * b * g
    dh = db @ w2.T
    da = dh * (a > 0)
    return x.T @ da, jax.nn.relu(a).T @ db, da @ w1.T


by_hand.defvjp(by_hand_fwd, by_hand_bwd)


def honest(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    seen[x.shape] = seen.get(x.shape, 0) + 1
    print("entry point called for", x.shape)
    if seen[x.shape] > 2:
        return by_hand(w1, w2, x)
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(honest, policy=policy)(w1, w2, x)
