"""Grading through the real process boundary: verdicts, messages, limits, the report's fields."""

import re
import textwrap
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.grading.grader import ExpectedCache
from judge.packages.limits import Limits
from tests.escape import escaping
from tests.grading_cache import graded_as_the_bank
from tests.judge.runners import Wrapping
from tests.tightened import tightened

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


def source(relative: str) -> str:
    return (DOT / "submissions" / relative).read_text()


def code(text: str) -> str:
    return textwrap.dedent(text)


def test_accepted_report_has_the_fields_the_site_shows(problem):
    report = graded_as_the_bank(problem, source("accepted/decorator.py")).to_dict()
    assert report["verdict"] == "accepted"
    assert [c["name"] for c in report["cases"]] == ["sample-1", "sample-2", "tall", "wide"]
    assert all(c["verdict"] == "accepted" for c in report["cases"])
    # an error's size is shown on the samples; on a hidden case it could carry the case's sizes out
    assert [c["max_error"] is not None for c in report["cases"]] == [True, True, False, False]
    kinds = sorted((r["kind"], r["what"]) for r in report["residuals"])
    assert kinds == [
        ("argument", "w1"),
        ("argument", "w2"),
        ("argument", "x"),
        ("primitive", "dot_general"),
        ("primitive", "dot_general"),
    ]
    assert report["residual_bytes"] == report["reference_residual_bytes"] == 3584  # N=8, d=16
    assert not any(r["offending"] for r in report["residuals"])
    assert report["structure"]["checkpoints"][0]["policy_text"] == "dots_with_no_batch_dims_saveable"


def test_no_checkpoint_says_so_first_then_names_the_saved_relu_output_as_written(problem):
    report = graded_as_the_bank(problem, source("policy_violation/no_checkpoint.py"))
    assert report.verdict == "policy_violation"
    assert report.message.startswith("case sample-1: Your program has no jax.checkpoint")
    assert report.cause.startswith("Your program has no jax.checkpoint") and report.advice.startswith("Try: wrap")
    relu = [r for r in report.residuals if r.what == "relu"]
    assert relu and relu[0].offending and relu[0].line == 6 and relu[0].type == "f32[8,16]"
    assert (relu[0].expr, relu[0].op) == ("jax.nn.relu(x @ w1)", "relu")
    # relu's derivative rule keeps a mask and a broadcast: they read as the call the learner wrote
    folded = [r for r in report.residuals if r.line == 6 and r.what != "relu"]
    assert {r.what for r in folded} == {"gt", "broadcast_in_dim"} and all(r.expr == relu[0].expr for r in folded)
    assert "f32[8,16] from `jax.nn.relu(x @ w1)` (relu) at line 6" in report.message
    assert "recomputes this; your code saved it" in report.message
    assert not re.search(r"\b(gt|broadcast_in_dim|dot_general|select_n|mul)\b", report.message)
    assert report.residual_bytes == 4224


def test_a_hidden_cases_message_keeps_its_sizes_to_itself(problem):
    report = graded_as_the_bank(problem, source("policy_violation/no_checkpoint.py"))
    hidden = [c for c in report.cases if not c.sample]
    assert hidden and all(c.verdict == "policy_violation" for c in hidden)
    for case in hidden:  # tall is 64x32: neither its types, its shapes nor its byte counts are told
        assert not re.search(r"\[\d|\(\d|\d+ bytes", case.message), case.message
        assert case.message.startswith("Your program has no jax.checkpoint")
    assert "f32[8,16]" in report.cases[0].message  # a sample's are


def test_bare_checkpoint_is_told_the_policy_would_save_the_matmuls(problem):
    report = graded_as_the_bank(problem, source("policy_violation/no_policy.py"))
    assert report.verdict == "policy_violation"
    assert len(report.missing_residuals) == 2
    assert all(r.what == "dot_general" for r in report.missing_residuals)
    assert report.message.startswith(
        "case sample-1: Your jax.checkpoint uses no policy, which means "
        "nothing_saveable, where this problem requires dots_with_no_batch_dims_saveable."
    )
    # the learner wrote a bare decorator: the advice is in the form that runs when followed there
    # (`@jax.checkpoint(policy=...)` would raise a TypeError)
    assert report.advice == (
        "Try: write the decorator at line 5 as `@functools.partial(jax.checkpoint, "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)` (with `import functools` at the "
        "top), in place of `@jax.checkpoint`: a decorator is given only the function, so jax.checkpoint's "
        "other arguments go in through functools.partial."
    )
    # the matmuls the policy would save are named as the learner wrote them, at their lines
    assert [(r.expr, r.op) for r in report.missing_residuals] == [("x @ w1", "@"), ("y @ w2", "@")]
    assert "f32[8,16] from `x @ w1` (@): the dots_with_no_batch_dims_saveable policy saves this" in report.message
    assert report.residual_bytes == 2560


def test_jit_does_not_change_the_verdict_or_the_rows(problem):
    plain = source("policy_violation/no_checkpoint.py")
    jitted = plain.replace("def checkpoint_dot_policy", "@jax.jit\ndef checkpoint_dot_policy")
    a, b = grade(problem, plain), grade(problem, jitted)
    assert a.verdict == b.verdict == "policy_violation"
    # the decorator line shifts the source down by one line
    assert [(r.type, r.what, r.line) for r in a.residuals] == [
        (r.type, r.what, r.line - 1 if r.line else None) for r in b.residuals
    ]


def test_samples_only_grades_the_sample_cases(problem):
    report = grade(problem, source("accepted/decorator.py"), samples_only=True)
    assert report.verdict == "accepted"
    assert [c.name for c in report.cases] == ["sample-1", "sample-2"]


def test_wrong_answer_names_the_case_and_the_first_differing_element(problem):
    report = graded_as_the_bank(problem, source("wrong_answer/forgot_square.py"))
    assert report.verdict == "wrong_answer"
    assert report.message.startswith("case sample-1: the output differs at index ()")


def test_wrong_gradient_is_wrong_answer(problem):
    report = grade(
        problem,
        code("""
        import jax
        import jax.numpy as jnp

        def checkpoint_dot_policy(w1, w2, x):
            value = jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)
            frozen = jax.lax.stop_gradient(w2)
            return value - jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2) + jnp.sum((jax.nn.relu(x @ w1) @ frozen) ** 2)
    """),
    )
    assert report.verdict == "wrong_answer"
    assert "gradient with respect to w2" in report.message


def test_nan_output_is_wrong_answer(problem):
    report = grade(
        problem,
        code("""
        import jax.numpy as jnp
        def checkpoint_dot_policy(w1, w2, x):
            return jnp.sum(w1) * jnp.nan
    """),
    )
    assert report.verdict == "wrong_answer" and "nan" in report.message


def test_non_array_output_is_wrong_answer(problem):
    report = grade(problem, "def checkpoint_dot_policy(w1, w2, x):\n    return 'hello'\n")
    assert report.verdict == "wrong_answer" and "expected a JAX array" in report.message


def test_exception_is_runtime_error_with_the_line(problem):
    report = grade(problem, "def checkpoint_dot_policy(w1, w2, x):\n    raise ValueError('boom')\n")
    assert report.verdict == "runtime_error"
    assert "ValueError: boom" in report.message and "line 2" in report.message


def test_a_submission_class_with_plain_annotations_works(problem):
    """An Equinox module (a dataclass) annotated with a bare name: the annotations are read as the
    submission wrote them, not as strings (the judge's own future import must not leak in)."""
    report = grade(
        problem,
        code("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Pipeline(eqx.Module):
            w1: object
            w2: object

            def __call__(self, x):
                return jnp.sum((jax.nn.relu(x @ self.w1) @ self.w2) ** 2)

        policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable

        def checkpoint_dot_policy(w1, w2, x):
            return eqx.filter_checkpoint(lambda m, x: m(x), policy=policy)(Pipeline(w1, w2), x)
    """),
    )
    assert report.verdict == "accepted", report.message


EXITS_EARLY = "import os\ndef checkpoint_dot_policy(w1, w2, x):\n    os._exit(0)\n"


def test_the_gate_refuses_os_before_any_process_starts(problem):
    report = grade(problem, EXITS_EARLY)
    assert report.verdict == "forbidden"
    assert report.message.startswith("line 1: `import os` is not allowed")


def test_the_child_refuses_the_import_too_when_the_gate_misses_it(problem, past_the_gate):
    report = grade(problem, EXITS_EARLY)
    assert report.verdict == "runtime_error" and "import of 'os' is not allowed" in report.message


def test_process_that_exits_without_a_result_is_runtime_error(problem, past_the_gate):
    report = grade(problem, escaping("def checkpoint_dot_policy(w1, w2, x):\n    os._exit(0)\n"))
    assert report.verdict == "runtime_error" and "before reporting a result" in report.message


def test_module_level_sys_exit_is_runtime_error(problem, past_the_gate):
    report = grade(problem, escaping("sys.exit(0)"))
    assert report.verdict == "runtime_error" and "SystemExit" in report.message


@pytest.fixture
def tight(problem):
    # Per test, not per module: the reference's results must be in the cache right before each grading
    # (a test between two may have left the judge another cache), or the reference would be computed
    # under these tight limits, and on a loaded host time out (internal_error).
    return tightened(problem, Limits(wall_s=6, cpu_s=5, memory_mb=2048, output_kb=8))


def test_infinite_loop_is_time_limit(tight):
    report = grade(tight, "def checkpoint_dot_policy(w1, w2, x):\n    while True:\n        pass\n")
    assert report.verdict == "time_limit"
    assert report.time_s < 20


def test_sleeping_forever_is_time_limit_by_wall_clock(tight, past_the_gate):
    report = grade(tight, escaping("def checkpoint_dot_policy(w1, w2, x):\n    _module('time').sleep(1000)\n"))
    assert report.verdict == "time_limit" and "longer than 6 s" in report.message


def test_memory_bomb_is_memory_limit(tight):
    report = grade(tight, "def checkpoint_dot_policy(w1, w2, x):\n    hog = bytearray(8 << 30)\n    return hog\n")
    assert report.verdict == "memory_limit"


def test_printing_too_much_is_output_limit(tight):
    report = grade(tight, "def checkpoint_dot_policy(w1, w2, x):\n    print('x' * 100000)\n    return w1\n")
    assert report.verdict == "output_limit", (report.verdict, report.message, report.notes)


class CountingRunner(Wrapping):
    """The shared zygote runner, recording every request its children get."""

    def __init__(self):
        super().__init__()
        self.requests = []

    def prepare(self, limits, role="run"):
        child, requests = self.inner.prepare(limits, role), self.requests

        class Recorded:
            def run(self, request, limits):
                requests.append(request)
                return child.run(request, limits)

            def discard(self):
                child.discard()

        return Recorded()

    def sources(self):
        return [r.get("source") for r in self.requests]


def test_reference_results_are_computed_once_per_package_version(problem):
    runner, cache = CountingRunner(), ExpectedCache()
    for _ in range(2):
        assert (
            grade(problem, source("accepted/decorator.py"), runner=runner, expected_cache=cache).verdict == "accepted"
        )
    assert runner.sources().count(problem.reference) == 1
    # each grading: the child that traces the source, then the verifier that runs its programs
    assert [r["kind"] for r in runner.requests] == ["trace", "verify"] * 3


def test_the_submissions_child_gets_its_source_and_generated_inputs_only(problem):
    runner = CountingRunner()
    submitted = source("accepted/decorator.py")
    grade(problem, submitted, runner=runner, expected_cache=ExpectedCache())
    request = runner.requests[-2]
    assert request["source"] == submitted
    assert request["kind"] == "trace" and set(request) == {
        "kind",
        "source",
        "filename",
        "entry",
        "arg_names",
        "wrt",
        "fwd_bwd",
        "cost",
        "baseline",
        "harness",
        "output_kb",
        "cases",
    }
    for case in request["cases"]:
        assert set(case) == {"name", "seed", "sample", "static_mask", "args"}
    assert problem.reference not in repr(request)


def test_the_verifier_gets_programs_and_inputs_but_no_source(problem):
    runner = CountingRunner()
    grade(problem, source("accepted/decorator.py"), runner=runner, expected_cache=ExpectedCache())
    request = runner.requests[-1]
    assert request["kind"] == "verify" and set(request) == {
        "kind",
        "fwd",
        "bwd",
        "wrt",
        "cases",
        "cost",
        "estimates",
        "numbers",
        "compiled",  # an executable compiled before from these programs' bytes, or None
        "keep",
    }
    assert "source" not in repr(request) and problem.reference not in repr(request)
    for case in request["cases"]:
        # "program": which of the bundle's programs runs it (cases of the same shapes share one)
        assert set(case) == {"name", "inputs", "cotangent", "hidden_inputs", "hidden_cotangent", "program"}
        # the hidden inputs have the case's shapes but other values
        assert [a.shape for a in case["inputs"]] == [a.shape for a in case["hidden_inputs"]]
        assert not any((a == b).all() for a, b in zip(case["inputs"], case["hidden_inputs"]))
