"""Trusted verification against a child that lies: whatever it sends, the numbers are recomputed.

A compromised child can send anything. ``LyingRunner`` stands for one: it runs the real child
for an honest, accepted submission and then replaces what it sent (the exported programs, the
residual table) before the grader sees it. The reference still runs honestly.
"""

import dataclasses
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

from judge import grade, load_problem
from judge.data.evidence import Cost
from judge.data.messages import CaseError, TracedCase
from judge.grading.expected import ExpectedCache
from tests.judge.runners import Wrapping

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"
HONEST = (DOT / "submissions" / "accepted" / "decorator.py").read_text()
WRONG = (DOT / "submissions" / "wrong_answer" / "forgot_square.py").read_text()


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


class LyingRunner(Wrapping):
    """The shared runner, except that the answer of the child that traces ``source`` is rewritten by ``forge``."""

    def __init__(self, forge, source=HONEST):
        super().__init__()
        self.forge, self.source = forge, source

    def run(self, request, limits):
        result = self.inner.run(request, limits)
        if request.get("source") == self.source and result.outcome == "ok":
            self.forge(request, result.response)
        return result


def _grade(problem, forge, source=HONEST):
    return grade(problem, source, runner=LyingRunner(forge, source), expected_cache=ExpectedCache())


def _reference(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def _serialized(fwd, bwd, inputs, residuals, cotangents, disabled=()) -> dict:
    f = export.export(jax.jit(fwd), disabled_checks=disabled)(inputs)
    # bytes made by hand would not say which checks they skip
    f = dataclasses.replace(f, disabled_safety_checks=())
    b = export.export(jax.jit(bwd))(residuals, cotangents)
    as_bytes = lambda e: np.frombuffer(bytes(e.serialize()), dtype=np.uint8)  # noqa: E731
    return {"fwd": as_bytes(f), "bwd": as_bytes(b)}


def _shapes(request):
    return [[np.asarray(a) for a in case["args"]] for case in request["cases"]]


def _baked_programs(request):
    """Programs that know the answers for the inputs the child was given, and nothing else: the
    residuals it claims (w1, w2, x and two matmul outputs) and the reference's value and gradients,
    as constants."""
    cases = _shapes(request)
    answers = [jax.value_and_grad(_reference, argnums=(0, 1, 2))(*arrays) for arrays in cases]

    def fwd(all_arrays):
        out = []
        for (value, _), (w1, w2, x) in zip(answers, all_arrays):
            out.append(([value + 0.0 * jnp.sum(x)], [w1, w2, x, x @ w1, x @ w1]))
        return out

    def bwd(all_residuals, all_cotangents):
        return [[g * ct[0] for g in grads] for (_, grads), ct in zip(answers, all_cotangents)]

    inputs = [[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays] for arrays in cases]
    residuals = [
        [
            jax.ShapeDtypeStruct(s, np.float32)
            for s in (w1.shape, w2.shape, x.shape, (x.shape[0], w1.shape[1]), (x.shape[0], w1.shape[1]))
        ]
        for w1, w2, x in cases
    ]
    cotangents = [[jax.ShapeDtypeStruct((), np.float32)] for _ in cases]
    return _serialized(fwd, bwd, inputs, residuals, cotangents)


def test_an_honest_child_is_accepted(problem):
    report = _grade(problem, lambda request, response: None)
    assert report.verdict == "accepted", (report.message, report.stdout)


def test_a_program_that_only_knows_the_given_inputs_fails_on_hidden_ones(problem):
    def forge(request, response):
        response["programs"] = _baked_programs(request)

    report = _grade(problem, forge)
    assert report.verdict == "wrong_answer"
    assert report.message.startswith("case sample-1: on hidden inputs of the same shapes: the output differs")
    # the given inputs alone would have passed; a hidden case's error is the submission's to modulate: not shown
    assert all((c.max_error is not None) == c.sample for c in report.cases)


def test_claiming_fewer_residuals_than_the_program_saves_is_not_believed_and_fails_closed(problem):
    def forge(request, response):
        for case in response["cases"]:
            case["residuals"] = case["residuals"][:3]  # drop the two matmul outputs from the table

    report = _grade(problem, forge)
    # the program itself is honest, but its report hides two of its residuals: nothing in the report
    # is believed. What the trusted side decides holds (the values its program saves match), and the
    # rule only the trace can decide (the checkpoint encloses the whole computation) is not passed
    # unchecked: it fails closed, saying why.
    assert report.verdict == "policy_violation", report.message
    assert any("does not match the program the judge ran" in note for note in report.notes)
    assert report.cause.startswith("The judge could not verify your checkpoint structure")
    assert "encloses the whole computation" in report.cause and report.advice.startswith("Try: ")
    assert all(c.verdict == "policy_violation" for c in report.cases)


def test_a_program_that_calls_out_of_xla_is_refused_unrun(problem):
    def forge(request, response):
        cases = _shapes(request)

        def fwd(all_arrays):
            out = []
            for w1, w2, x in all_arrays:
                # a custom call: XLA would jump to whatever native function is registered under the name
                value = jax.ffi.ffi_call("escape_hatch", jax.ShapeDtypeStruct((), np.float32))(_reference(w1, w2, x))
                out.append(([value], [w1, w2, x, x @ w1, x @ w1]))
            return out

        def bwd(all_residuals, all_cotangents):
            return [[jnp.zeros_like(r) for r in res[:3]] for res in all_residuals]

        inputs = [[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays] for arrays in cases]
        residuals = [
            [
                jax.ShapeDtypeStruct(s, np.float32)
                for s in (w1.shape, w2.shape, x.shape, (x.shape[0], w1.shape[1]), (x.shape[0], w1.shape[1]))
            ]
            for w1, w2, x in cases
        ]
        cotangents = [[jax.ShapeDtypeStruct((), np.float32)] for _ in cases]
        # an attacker builds the module as it likes; here JAX's own export-time check is switched off
        disabled = [export.DisabledSafetyCheck.custom_call("escape_hatch")]
        response["programs"] = _serialized(fwd, bwd, inputs, residuals, cotangents, disabled)

    report = _grade(problem, forge)
    assert report.verdict == "runtime_error"
    assert report.message == "the judge refused your program: the program calls out of XLA: custom call 'escape_hatch'"


def test_a_backward_program_that_reads_the_inputs_instead_of_the_residuals_is_refused(problem):
    def forge(request, response):
        cases = _shapes(request)

        def fwd(all_arrays):
            return [([_reference(w1, w2, x)], [w1, w2, x]) for w1, w2, x in all_arrays]

        def bwd(all_inputs, all_cotangents):
            return [list(jax.grad(_reference, argnums=(0, 1, 2))(*arrays)) for arrays in all_inputs]

        inputs = [[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays] for arrays in cases]
        # the backward program is exported for more arguments than the forward one returns
        wider = [
            [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays] + [jax.ShapeDtypeStruct((1,), np.float32)]
            for arrays in cases
        ]
        response["programs"] = _serialized(
            fwd,
            lambda r, c: bwd([a[:3] for a in r], c),
            inputs,
            wider,
            [[jax.ShapeDtypeStruct((), np.float32)] for _ in cases],
        )

    report = _grade(problem, forge)
    assert report.verdict == "runtime_error"
    assert "the backward program does not take exactly the forward program's residuals" in report.message


def test_garbage_instead_of_a_program_is_refused(problem):
    def forge(request, response):
        response["programs"] = {
            "fwd": np.frombuffer(b"not a program" * 10, dtype=np.uint8),
            "bwd": np.frombuffer(b"\x00" * 64, dtype=np.uint8),
        }

    report = _grade(problem, forge)
    assert report.verdict == "runtime_error"
    assert "the exported program could not be read" in report.message


def test_results_for_cases_nobody_asked_for_are_malformed(problem):
    def forge(request, response):
        response["cases"].append(dict(response["cases"][0], name="invented"))

    report = _grade(problem, forge)
    assert (
        report.verdict == "runtime_error" and report.message == "the submission's process sent back a malformed result"
    )


def test_a_child_cannot_mark_its_own_cases_as_skipped(problem):
    def forge(request, response):  # every case "not run": none would be left to fail
        failed = [TracedCase(c["name"], error=CaseError("runtime_error", "later")).to_wire() for c in request["cases"]]
        for case in failed:
            case["error"]["skipped"] = True  # the parent's mark: not a field of the child's message
        response |= {"cases": failed, "programs": None}

    report = _grade(problem, forge, WRONG)
    assert (
        report.verdict == "runtime_error" and report.message == "the submission's process sent back a malformed result"
    )


def test_a_child_that_answers_no_case_sent_back_a_malformed_result(problem):
    def forge(request, response):
        response["cases"] = []
        del response["programs"]

    report = _grade(problem, forge, WRONG)
    assert (
        report.verdict == "runtime_error" and report.message == "the submission's process sent back a malformed result"
    )


def test_a_child_that_stops_early_without_a_failure_sent_back_a_malformed_result(problem):
    def forge(request, response):
        response["cases"] = response["cases"][:1]

    report = _grade(problem, forge)
    assert (
        report.verdict == "runtime_error" and report.message == "the submission's process sent back a malformed result"
    )


def test_claiming_that_device_residuals_were_offloaded_is_not_believed():
    """The memory each residual is kept in is the exported program's, not the child's word: the
    products kept on the device, claimed to be in host memory, do not pass the offloading problem."""
    offload = load_problem(ROOT / "problems" / "offload_dots_to_host")
    on_device = (
        ROOT / "problems" / "offload_dots_to_host" / "submissions" / "policy_violation" / "dots_on_device.py"
    ).read_text()

    def forge(request, response):
        for case in response["cases"]:
            for residual in case["residuals"]:
                if residual["kind"] == "primitive":
                    residual["memory"] = "pinned_host"
            for checkpoint in case["structure"]["checkpoints"]:  # and the policy's identity, too
                checkpoint["policy"] = ["offload_dot_with_no_batch_dims", "device", "pinned_host"]

    report = _grade(offload, forge, source=on_device)
    assert report.verdict == "policy_violation", report.message
    assert any("does not match the program the judge ran" in note for note in report.notes)
    assert "in another memory than it does (it keeps them on the host (pinned_host))" in report.message


def test_cost_figures_come_from_the_verifier_not_the_child():
    """A child that reports a tiny cost (as the red team's patched cost walk did) for one
    checkpoint around a whole transformer: the verdict rests on the verifier's figures, so the
    program is still refused for recomputing and holding too much."""
    budget = load_problem(ROOT / "problems" / "memory_budget_transformer")
    source = (
        ROOT / "problems" / "memory_budget_transformer" / "submissions" / "policy_violation" / "whole_network.py"
    ).read_text()

    def tiny(request, response):
        for case in response["cases"]:
            case["cost"] = Cost(flops=1.0, peak_bytes=1, held_peak_bytes=1, plain_held_peak_bytes=10**12).to_wire()

    report = _grade(budget, tiny, source)
    assert report.verdict == "policy_violation"
    assert report.cost.flops > budget.cost_rules.max_flops
    assert "FLOPs" in report.message or "recomputes" in report.message
