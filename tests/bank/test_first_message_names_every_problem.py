"""A submission with several problems is told all of them in its first message, the error that stops
it first: mending the first, a learner does not meet a second the first message could have named.
Each problem has a "Try:" of its own, and the code each shows, written in turn into the learner's
file, is accepted."""

import re
from pathlib import Path

from judge import load_problem
from judge.data import verdicts
from tests.bank.test_bank_validates import graded_source

ROOT = Path(__file__).resolve().parents[2]
TRAINING = load_problem(ROOT / "problems" / "static_argnums_training_flag")

# Two mistakes: the flag reaches `if` as a traced value, and the checkpoint has no policy.
FLAG_AND_NO_POLICY = """import jax
import jax.numpy as jnp


@jax.checkpoint
def masked_block(W, x, is_training):
    a = jnp.tanh(x @ W)
    if is_training:
        a = a * jnp.where(jnp.arange(a.shape[-1]) % 2 == 0, 2.0, 0.0)
    return jnp.sum(a ** 2)
"""

# Two mistakes: the mask is applied in evaluation too (wrong values), and the checkpoint has no policy.
MASK_ALWAYS_NO_POLICY = """from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.checkpoint, static_argnums=(2,))
def masked_block(W, x, is_training):
    a = jnp.tanh(x @ W) * jnp.where(jnp.arange(W.shape[1]) % 2 == 0, 2.0, 0.0)
    return jnp.sum(a ** 2)
"""


def _graded(source: str):
    return graded_source(TRAINING, source, "jax_remat")


def _tries(advice: str) -> list[str]:
    return [t.strip() for t in re.split(r"(?=\bTry: )", advice) if t.strip()]


def _decorator_shown(advice: str) -> str:
    """The decorator a "Try:" shows, as the learner would paste it."""
    return next(code for code in re.findall(r"`([^`]+)`", advice) if code.startswith("@"))


def test_a_traced_flag_and_a_missing_policy_are_both_told_and_each_try_followed_is_accepted():
    first = _graded(FLAG_AND_NO_POLICY)
    assert first.verdict == verdicts.RUNTIME_ERROR, first.message
    assert first.cause.startswith("Your code asks Python to branch on a traced value (line 8)"), first.cause
    assert "a second problem" in first.cause and "uses no policy, which means nothing_saveable" in first.cause
    static, policy = _tries(first.advice)
    assert "static_argnums=(2,)" in static and "policy=" not in _decorator_shown(static), static
    # the second "Try:" keeps what the first one wrote: following both in turn keeps both
    assert _decorator_shown(policy) == (
        "@functools.partial(jax.checkpoint, static_argnums=(2,), "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)"
    ), policy
    after_first = "import functools\n" + FLAG_AND_NO_POLICY.replace(
        "@jax.checkpoint\n", _decorator_shown(static) + "\n"
    )
    after_both = after_first.replace(_decorator_shown(static) + "\n", _decorator_shown(policy) + "\n")
    followed = _graded(after_both)
    assert followed.verdict == verdicts.ACCEPTED, followed.message


def test_a_wrong_value_and_a_missing_policy_are_both_told_and_both_followed_is_accepted():
    first = _graded(MASK_ALWAYS_NO_POLICY)
    assert first.verdict == verdicts.WRONG_ANSWER, first.message
    assert "a second problem" in first.cause and "uses no policy" in first.cause, first.cause
    values, policy = _tries(first.advice)
    assert "static_argnums=(2,), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable" in policy, policy
    mended = MASK_ALWAYS_NO_POLICY.replace(
        "    a = jnp.tanh(x @ W) * jnp.where(jnp.arange(W.shape[1]) % 2 == 0, 2.0, 0.0)\n",
        "    a = jnp.tanh(x @ W)\n    if is_training:\n"
        "        a = a * jnp.where(jnp.arange(W.shape[1]) % 2 == 0, 2.0, 0.0)\n",
    ).replace("@partial(jax.checkpoint, static_argnums=(2,))\n", _decorator_shown(policy) + "\n")
    followed = _graded(mended)
    assert followed.verdict == verdicts.ACCEPTED, followed.message


def test_a_single_problem_is_told_alone():
    """The packaged traced flag with the policy already right: nothing more to tell."""
    source = (TRAINING.path / "submissions" / "runtime_error" / "flag_in_decorated.py").read_text()
    told = _graded(source)
    assert told.verdict == verdicts.RUNTIME_ERROR and "problem" not in told.cause, told.cause
    assert len(_tries(told.advice)) == 1, told.advice
