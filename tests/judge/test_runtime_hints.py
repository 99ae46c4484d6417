"""A sample case's runtime error opens with its cause in the learner's terms, then one change."""

from pathlib import Path

import pytest

from judge import grade, load_problem, runtime_hints

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "slug, relative, cause, advice",
    [
        (
            "static_argnums_training_flag",
            "runtime_error/traced_flag.py",
            "Your code asks Python to branch on a traced value (line 8)",
            "static_argnums",
        ),
        (
            "compile_time_eval",
            "runtime_error/no_compile_time_eval.py",
            "Your code asks Python to branch on a traced value (line 11)",
            "jax.ensure_compile_time_eval()",
        ),
        (
            "equinox_scan_layers",
            "runtime_error/scan_the_module.py",
            "Your code passes a model that holds functions",
            "eqx.partition(model, eqx.is_array)",
        ),
        (
            "checkpoint_dot_policy",
            "runtime_error/string_policy.py",
            "Your code calls a string as a function (line 7): a policy is given as a function object",
            "policy=jax.checkpoint_policies.<name> (no quotes)",
        ),
        (
            "write_a_policy",
            "runtime_error/returns_string.py",
            "Your policy returns something other than True or False",
            "return a bool",
        ),
    ],
)
def test_a_packaged_runtime_error_is_told_its_cause_and_a_change(slug, relative, cause, advice):
    problem = load_problem(ROOT / "problems" / slug)
    report = grade(problem, (problem.path / "submissions" / relative).read_text())
    assert report.verdict == "runtime_error"
    assert report.cause.startswith(cause) and advice in report.advice and report.advice.startswith("Try: ")
    for internal in ("bool[]", "PjitFunction", "jaxlib", "ad_checkpoint"):
        assert internal not in report.cause + report.advice


def test_a_hint_that_needs_its_line_does_not_guess():
    assert runtime_hints.hint("TypeError: 'str' object is not callable", 3, 'name = "x"; name()') is None
    assert runtime_hints.hint("ZeroDivisionError: division by zero", 3, "1 / 0") is None


def test_an_error_without_a_hint_keeps_the_report_as_it_was():
    problem = load_problem(ROOT / "problems" / "checkpoint_dot_policy")
    report = grade(problem, (problem.path / "submissions" / "runtime_error" / "shape_mismatch.py").read_text())
    assert report.verdict == "runtime_error" and report.cause == "" and report.advice == ""
