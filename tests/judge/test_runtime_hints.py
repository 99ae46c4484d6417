"""A sample case's runtime error opens with its cause in the learner's terms, then one change."""

from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.grading import runtime_hints

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
        (
            "checkpoint_dot_policy",
            "runtime_error/shape_mismatch.py",
            "Your matrix product's two sides do not fit (line 6)",
            "x @ w, not w @ x",
        ),
        (
            "equinox_filter_checkpoint",
            "runtime_error/plain_jax_checkpoint.py",
            "Your code passes a model that holds functions",
            "eqx.filter_checkpoint",
        ),
        (
            "offload_dots_to_host",
            "runtime_error/factory_not_called.py",
            "Your policy= is given the policy's factory, not a policy (line 12)",
            "offload_dot_with_no_batch_dims('device', 'pinned_host')",
        ),
        (
            "offload_some_names",
            "runtime_error/name_in_both_lists.py",
            "Your policy lists a name both among the values to keep on the device and among those to move",
            "each name in one list only",
        ),
        (
            "offload_some_names",
            "runtime_error/memories_swapped.py",
            "Your offloading policy moves saved values the wrong way",
            "offload_src='device', offload_dst='pinned_host'",
        ),
    ],
)
def test_a_packaged_runtime_error_is_told_its_cause_and_a_change(slug, relative, cause, advice):
    problem = load_problem(ROOT / "problems" / slug)
    report = grade(problem, (problem.path / "submissions" / relative).read_text())
    assert report.verdict == "runtime_error"
    assert report.cause.startswith(cause) and advice in report.advice and report.advice.startswith("Try: ")
    for internal in ("bool[]", "PjitFunction", "jaxlib", "ad_checkpoint", "dot_general", "AssertionError", "<class"):
        assert internal not in report.cause + report.advice


def test_a_hint_that_needs_its_line_does_not_guess():
    assert runtime_hints.hint("TypeError: 'str' object is not callable", 3, 'name = "x"; name()') is None
    assert runtime_hints.hint("ZeroDivisionError: division by zero", 3, "1 / 0") is None


def test_a_branch_line_that_is_no_expression_up_to_its_colon_keeps_the_general_advice():
    # `if lambda v: v:` read up to its first colon is `lambda v`, which does not parse: the parent read
    # it unguarded and the grading would have ended in an internal error, not the learner's runtime error
    program = "import jax\n\n\ndef f(x):\n    if lambda v: v:\n        return x\n"
    text = "TracerBoolConversionError: Attempted boolean conversion of traced array"
    cause, advice = runtime_hints.hint(text, 5, "    if lambda v: v:", program)
    assert cause.startswith("Your code asks Python to branch on a traced value (line 5)")
    assert advice == runtime_hints.HINTS[0].advice


def test_an_error_without_a_hint_keeps_the_report_as_it_was():
    problem = load_problem(ROOT / "problems" / "checkpoint_dot_policy")
    source = 'def checkpoint_dot_policy(w1, w2, x):\n    return {"a": x}["b"]\n'  # a KeyError: no hint knows it
    report = grade(problem, source)
    assert report.verdict == "runtime_error" and report.cause == "" and report.advice == ""


def test_a_bare_assertion_is_told_of_offloading_only_where_the_program_swaps_the_memories():
    swapped = 'policy(offload_src="pinned_host", offload_dst="device")'
    assert runtime_hints.hint("AssertionError: ", None, "", swapped)[0].startswith("Your offloading policy")
    assert runtime_hints.hint("AssertionError: ", 4, "assert x > 0", "assert x > 0") is None
