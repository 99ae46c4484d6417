"""From a source to per-case evidence: the submission's child, then the verifier.

``run`` is used alike for a submission and for the reference (whose results become the expected
ones). The child traces the source and exports its programs; the verifier, started at the same
time so that its start-up overlaps the child's work, computes the values and gradients from those
programs (see ``judge.verify``). What comes back from either is checked before it is believed.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from . import compare, rules, verdicts, verify
from .package import Case, Problem
from .specs import generate

FILENAME = "submission.py"

CHILD_OUTCOMES = {
    "time_limit": verdicts.TIME_LIMIT,
    "memory_limit": verdicts.MEMORY_LIMIT,
    "output_limit": verdicts.OUTPUT_LIMIT,
    "crashed": verdicts.RUNTIME_ERROR,
    "protocol_error": verdicts.RUNTIME_ERROR,
    "sandbox_error": verdicts.INTERNAL_ERROR,
}
ERROR_KINDS = {
    "compile_error": verdicts.COMPILE_ERROR,
    "runtime_error": verdicts.RUNTIME_ERROR,
    "memory_limit": verdicts.MEMORY_LIMIT,
    "output_limit": verdicts.OUTPUT_LIMIT,  # printed on hidden cases, where the child counts what it drops
    "bad_output": verdicts.WRONG_ANSWER,
}
MALFORMED = "the submission's process sent back a malformed result"
UNCONFIRMED = ("the submission's process reported residuals that its program does not save "
               "(the judge recomputes them where no submitted code runs)")


@dataclass
class Outcome:
    """What a source did: either a failure of the whole run, or evidence per case."""
    failure: tuple[str, str] | None = None  # (verdict, message)
    cases: list = field(default_factory=list)
    stdout: str = ""


def case_inputs(problem: Problem, case: Case, salt: int | None = None) -> list:
    """The case's arguments, generated from its seed (each argument from a stream of its own).

    With a ``salt``, the hidden inputs of the same shapes that only the verifier sees.
    """
    values = []
    for index, arg in enumerate(problem.args):
        if arg.static:
            values.append(case.static.get(arg.name, arg.default))
        else:
            rng = np.random.default_rng([case.seed, index] if salt is None else [case.seed, index, salt])
            values.append(generate(arg.spec, arg.spec.shape(case.dims), arg.init, arg.scale, rng))
    return values


def build_request(problem: Problem, source: str, cases, *, inspect: bool = True, fwd_bwd: bool = False,
                  cost: bool = False, export: bool = True) -> dict:
    static_mask = [a.static for a in problem.args]
    array_positions = [i for i, a in enumerate(problem.args) if not a.static]
    request = {
        "source": source,
        "filename": FILENAME,
        "entry": problem.entry,
        "arg_names": [a.name for a in problem.args],
        "wrt": [array_positions.index(i) for i in problem.wrt_indices],
        "inspect": inspect,
        "fwd_bwd": fwd_bwd,
        "export": export,
        "output_kb": problem.limits.output_kb,
        # the child shows what is printed on sample cases only (see child._PrintedOutput)
        "cases": [{"name": c.name, "seed": c.seed, "sample": c.sample, "static_mask": static_mask,
                   "args": case_inputs(problem, c)} for c in cases],
    }
    if problem.harness:
        request["harness"] = problem.harness
    if cost or problem.cost_rules.active:
        request["cost"] = True
    return request


def run(problem: Problem, source: str, cases, runner, *, salt: int, expected_outputs: dict | None = None,
        fwd_bwd: bool = False, cost: bool = False) -> Outcome:
    """Run ``source`` on ``cases``. ``expected_outputs`` (per case name, the reference's output
    types) shapes the cotangents; without it (the reference itself) the child's own are used."""
    cases = sorted(cases, key=lambda c: not c.sample)  # samples first: their printed output is shown
    request = build_request(problem, source, cases, fwd_bwd=fwd_bwd, cost=cost)
    verifier = runner.prepare(problem.limits, role="verify")
    try:
        result = runner.run(request, problem.limits)
        outcome = Outcome(stdout=result.stdout)
        if result.outcome != "ok":
            outcome.failure = _limit_failure(result)
            return outcome
        response = result.response
        if response.get("status") != "ok":
            error = response.get("error") or {}
            outcome.failure = (ERROR_KINDS.get(error.get("kind"), verdicts.RUNTIME_ERROR), error_message(error))
            return outcome
        sent = response.get("cases")
        requested = [c.name for c in cases]
        if not isinstance(sent, list) or not all(valid_child_case(c) for c in sent) \
                or [c["name"] for c in sent] != requested[:len(sent)]:  # the cases asked for, in order
            outcome.failure = (verdicts.RUNTIME_ERROR, MALFORMED)
            return outcome
        outcome.cases = sent
        traced = [c for c in sent if "error" not in c]
        if not traced:
            return outcome
        if not _valid_programs(response.get("programs")):
            outcome.failure = (verdicts.RUNTIME_ERROR, MALFORMED)
            return outcome
        by_case = {c.name: c for c in cases}
        outputs = expected_outputs or {c["name"]: c["outputs"] for c in traced}
        verify_cases = [_verify_case(problem, by_case[c["name"]], request, outputs[c["name"]], salt) for c in traced]
        checked = verifier.run(verify.build_request(response["programs"], request["wrt"], verify_cases),
                               problem.limits)  # its output (XLA's, on hidden cases too) is not the learner's
        _merge(outcome, checked, traced, outputs)
        return outcome
    finally:
        verifier.discard()


def _verify_case(problem: Problem, case: Case, request: dict, outputs: list, salt: int) -> dict:
    public = next(c for c in request["cases"] if c["name"] == case.name)["args"]
    hidden = case_inputs(problem, case, salt)
    arrays = [a for a, arg in zip(public, problem.args) if not arg.static]
    hidden_arrays = [a for a, arg in zip(hidden, problem.args) if not arg.static]
    return {"name": case.name, "inputs": arrays, "cotangent": verify.cotangent(outputs, case.seed),
            "hidden_inputs": hidden_arrays, "hidden_cotangent": verify.cotangent(outputs, case.seed, salt)}


def _merge(outcome: Outcome, checked, traced: list, expected_outputs: dict) -> None:
    """Put the verifier's numbers into the child's cases, or turn its failure into the outcome's."""
    if checked.outcome != "ok":
        outcome.failure = _limit_failure(checked)
        return
    response = checked.response
    if not verify.valid_response(response, [c["name"] for c in traced]):
        outcome.failure = (verdicts.INTERNAL_ERROR, "the verifier sent back a malformed result")
        return
    if response["status"] == "error":
        error = response["error"]
        outcome.failure = (ERROR_KINDS.get(error["kind"], verdicts.RUNTIME_ERROR), error_message(error))
        return
    for case, found in zip(traced, response["cases"]):
        case["outputs"] = found["outputs"]
        if not response["checked"]:
            message = compare.compare_types(found["outputs"], expected_outputs[case["name"]])
            if message:
                case["error"] = {"kind": "bad_output", "message": message, "line": None}
            else:
                case["error"] = {"kind": "runtime_error", "message": "not checked (an earlier case failed)",
                                 "line": None, "skipped": True}
            continue
        if "residuals" in case and Counter(_types(case["residuals"])) != Counter(_types(found["residuals"])):
            case["error"] = {"kind": "runtime_error", "message": UNCONFIRMED, "line": None}
            continue
        case["residual_types"] = found["residuals"]
        for key in ("value", "grads", "hidden_value", "hidden_grads"):
            case[key] = found[key]


def _types(avals) -> list:
    return [(a["dtype"], tuple(a["shape"])) for a in avals]


def _valid_programs(programs) -> bool:
    return isinstance(programs, dict) and all(
        isinstance(programs.get(k), np.ndarray) and programs[k].dtype == np.uint8 and programs[k].ndim == 1
        for k in ("fwd", "bwd"))


def valid_child_case(case) -> bool:
    """The child is untrusted: check the shape of what it sent before reading it."""
    if not isinstance(case, dict) or not isinstance(case.get("name"), str):
        return False
    if "error" in case:
        err = case["error"]
        return isinstance(err, dict) and err.get("kind") in ERROR_KINDS and isinstance(err.get("message"), str)
    try:
        ok = isinstance(case["treedef"], str) and verify.valid_avals(case["outputs"])
        if ok and "residuals" in case:
            for r in case["residuals"]:
                ok = ok and isinstance(r["kind"], str) and isinstance(r["what"], str) and isinstance(r["type"], str) \
                    and isinstance(r["dtype"], str) and isinstance(r["shape"], list) \
                    and all(isinstance(d, int) for d in r["shape"]) \
                    and isinstance(r["bytes"], int) and (r["line"] is None or isinstance(r["line"], int)) \
                    and isinstance(r.get("policy_saved", False), bool) \
                    and (r.get("stacked") is None or isinstance(r["stacked"], int))
            s = case["structure"]
            for c in s["checkpoints"]:
                ok = ok and isinstance(c["policy"], list) and isinstance(c["encloses"], dict) \
                    and isinstance(c["policy_text"], str) and isinstance(c["depth"], int) \
                    and isinstance(c["prevent_cse"], bool)
                rules.policy_from_wire(c["policy"])
            ok = ok and isinstance(s["custom_vjp"], list)
        if ok and "cost" in case:
            ok = isinstance(case["cost"], dict) and all(
                isinstance(case["cost"].get(k), (int, float)) for k in ("flops", "peak_bytes"))
        return bool(ok)
    except (KeyError, TypeError, IndexError, ValueError):
        return False


def _limit_failure(result) -> tuple[str, str]:
    verdict = CHILD_OUTCOMES[result.outcome]
    if verdict == verdicts.INTERNAL_ERROR:
        return verdict, result.detail
    return verdict, (f"your submission {result.detail}" if result.detail else verdicts.DESCRIPTIONS[verdict])


def error_message(error: dict) -> str:
    line = f" (line {error['line']})" if error.get("line") else ""
    return f"{error.get('message', 'unknown error')}{line}"
