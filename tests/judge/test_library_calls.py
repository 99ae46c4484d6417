"""A library call the cost walk cannot see into, as a learner meets it: refused on a problem with a
FLOP limit, the message naming the call as written and its line, and one change that fixes it."""

from __future__ import annotations

from pathlib import Path

from judge import grade, load_problem

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests/integrity/cases/memory_budget_mlp/policy_violation/linalg_svd_burn.py"


def test_an_svd_under_a_flop_limit_is_named_on_its_line_and_removing_it_is_accepted():
    problem = load_problem(ROOT / "problems/memory_budget_mlp")
    source = CASE.read_text()
    refused = grade(problem, source)
    assert refused.verdict == "policy_violation"
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "jnp.linalg.svd(" in text)
    assert refused.message.startswith(
        f"case sample-1: Your gradient step calls jnp.linalg.svd (lapack_sgesdd_ffi), on line {line}, which runs "
        "in a compiled library outside the program the judge reads"
    ), refused.message
    assert "Try: remove the call" in refused.message
    # the advice followed: the same step without the burn
    followed = source.replace(
        "    return jnp.mean((h - y) ** 2) + 0.0 * jnp.sum(s)", "    return jnp.mean((h - y) ** 2)"
    )
    followed = followed.replace("    s = jax.lax.fori_loop(0, 60, burn, jnp.zeros(W.shape[0]))\n", "")
    assert followed != source
    assert grade(problem, followed).verdict == "accepted"
