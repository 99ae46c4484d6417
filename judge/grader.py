"""``grade(problem, source)``: from a submission's source to a verdict with its evidence.

The reference and the submission run through the same runner (the same process boundary, the
same limits). The reference's results are computed once per package content hash and case set
and then reused; the submission's are checked against them case by case: values, gradients,
saved residuals, checkpoint structure.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from . import compare, rules, verdicts
from .package import Case, Problem
from .specs import generate

FILENAME = "submission.py"

# Verdicts from worst to mildest: the report's verdict is the worst of its cases'.
SEVERITY = (
    verdicts.INTERNAL_ERROR, verdicts.FORBIDDEN, verdicts.COMPILE_ERROR, verdicts.TIME_LIMIT,
    verdicts.MEMORY_LIMIT, verdicts.OUTPUT_LIMIT, verdicts.RUNTIME_ERROR, verdicts.WRONG_ANSWER,
    verdicts.POLICY_VIOLATION, verdicts.ACCEPTED,
)
CHILD_OUTCOMES = {
    "time_limit": verdicts.TIME_LIMIT,
    "memory_limit": verdicts.MEMORY_LIMIT,
    "output_limit": verdicts.OUTPUT_LIMIT,
    "crashed": verdicts.RUNTIME_ERROR,
    "protocol_error": verdicts.RUNTIME_ERROR,
}
ERROR_KINDS = {
    "compile_error": verdicts.COMPILE_ERROR,
    "runtime_error": verdicts.RUNTIME_ERROR,
    "memory_limit": verdicts.MEMORY_LIMIT,
    "bad_output": verdicts.WRONG_ANSWER,
}


class ReferenceError_(RuntimeError):
    """The problem's own reference failed: the package is broken, not the submission."""


@dataclass
class Report:
    problem: str
    verdict: str
    message: str
    cases: list = field(default_factory=list)
    residuals: list = field(default_factory=list)
    missing_residuals: list = field(default_factory=list)
    reference_residuals: list = field(default_factory=list)
    residual_bytes: int = 0
    reference_residual_bytes: int = 0
    structure: dict = field(default_factory=dict)
    programs: dict = field(default_factory=dict)
    cost: dict = field(default_factory=dict)
    stdout: str = ""
    time_s: float = 0.0
    notes: list = field(default_factory=list)
    submission: str = ""

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def case_inputs(problem: Problem, case: Case) -> list:
    """The case's arguments, generated from its seed (each argument from a stream of its own)."""
    values = []
    for index, arg in enumerate(problem.args):
        if arg.static:
            values.append(case.static.get(arg.name, arg.default))
        else:
            rng = np.random.default_rng([case.seed, index])
            values.append(generate(arg.spec, arg.spec.shape(case.dims), arg.init, arg.scale, rng))
    return values


def build_request(problem: Problem, source: str, cases, *, inspect: bool = True, fwd_bwd: bool = False,
                  cost: bool = False) -> dict:
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
        "cases": [{"name": c.name, "seed": c.seed, "static_mask": static_mask, "args": case_inputs(problem, c)}
                  for c in cases],
    }
    if problem.harness:
        request["harness"] = problem.harness
    if cost or problem.cost_rules.active:
        request["cost"] = True
    return request


def default_runner():
    from .runner import FreshInterpreterRunner

    return FreshInterpreterRunner()


class ExpectedCache:
    """Reference results per (package content hash, case names): computed once, then reused."""

    def __init__(self):
        self._data: dict = {}
        self._lock = threading.Lock()

    def get(self, problem: Problem, cases, runner) -> dict:
        key = (problem.content_hash, tuple(c.name for c in cases))
        with self._lock:
            if key in self._data:
                return self._data[key]
        expected = _run_reference(problem, cases, runner)
        with self._lock:
            self._data[key] = expected
        return expected


EXPECTED = ExpectedCache()


def _run_reference(problem: Problem, cases, runner) -> dict:
    result = runner.run(build_request(problem, problem.reference, cases), problem.limits)
    if result.outcome != "ok":
        raise ReferenceError_(f"the reference of {problem.slug} did not finish: {result.outcome} ({result.detail})")
    response = result.response
    if response.get("status") != "ok":
        raise ReferenceError_(f"the reference of {problem.slug} failed: {response.get('error')}")
    by_name = {}
    for case in response["cases"]:
        if "error" in case:
            raise ReferenceError_(f"the reference of {problem.slug} failed on case {case['name']}: {case['error']}")
        by_name[case["name"]] = case
    return by_name


def _valid_case(case) -> bool:
    """The child is untrusted: check the shape of what it sent before reading it."""
    if not isinstance(case, dict) or not isinstance(case.get("name"), str):
        return False
    if "error" in case:
        err = case["error"]
        return isinstance(err, dict) and err.get("kind") in ERROR_KINDS and isinstance(err.get("message"), str)
    try:
        ok = (isinstance(case["value"], list) and isinstance(case["grads"], list)
              and isinstance(case["treedef"], str)
              and all(isinstance(v, np.ndarray) for v in case["value"] + case["grads"]))
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


def _worst(verdict_list) -> str:
    return min(verdict_list, key=SEVERITY.index) if verdict_list else verdicts.ACCEPTED


def grade(problem: Problem, source: str, *, samples_only: bool = False, runner=None,
          fwd_bwd: bool = False, measure_cost: bool = False,
          expected_cache: ExpectedCache | None = None) -> Report:
    started = time.monotonic()
    runner = runner or default_runner()
    cases = problem.samples if samples_only else problem.cases
    try:
        expected = (expected_cache or EXPECTED).get(problem, cases, runner)
    except ReferenceError_ as exc:
        return Report(problem.slug, verdicts.INTERNAL_ERROR, str(exc), time_s=time.monotonic() - started)
    request = build_request(problem, source, cases, fwd_bwd=fwd_bwd, cost=measure_cost)
    result = runner.run(request, problem.limits)
    report = Report(problem.slug, verdicts.ACCEPTED, "", stdout=result.stdout, notes=list(runner.notes()))
    if result.outcome != "ok":
        report.verdict = CHILD_OUTCOMES[result.outcome]
        report.message = _limit_message(report.verdict, result.detail)
    elif result.response.get("status") != "ok":
        error = result.response.get("error") or {}
        report.verdict = ERROR_KINDS.get(error.get("kind"), verdicts.RUNTIME_ERROR)
        report.message = _error_message(error)
    else:
        _check_cases(problem, cases, result.response.get("cases"), expected, report)
    report.time_s = round(time.monotonic() - started, 4)
    return report


def _limit_message(verdict: str, detail: str) -> str:
    return f"your submission {detail}" if detail else verdicts.DESCRIPTIONS[verdict]


def _error_message(error: dict) -> str:
    line = f" (line {error['line']})" if error.get("line") else ""
    return f"{error.get('message', 'unknown error')}{line}"


def _check_cases(problem: Problem, cases, sent, expected: dict, report: Report) -> None:
    if not isinstance(sent, list) or not all(_valid_case(c) for c in sent):
        report.verdict, report.message = verdicts.RUNTIME_ERROR, "the submission's process sent back a malformed result"
        return
    by_name = {c["name"]: c for c in sent}
    case_verdicts = []
    first_message = {}
    for case in cases:
        got = by_name.get(case.name)
        want = expected[case.name]
        row = {"name": case.name, "sample": case.sample, "verdict": verdicts.ACCEPTED, "message": "", "max_error": None}
        if got is None:
            row["verdict"], row["message"] = verdicts.RUNTIME_ERROR, "not run (an earlier case failed)"
            row["skipped"] = True
        elif "error" in got:
            row["verdict"] = ERROR_KINDS[got["error"]["kind"]]
            row["message"] = _error_message(got["error"])
        else:
            message, err = compare.compare_outputs(got, want, problem.wrt, problem.rtol, problem.atol)
            row["max_error"] = None if not np.isfinite(err) else err
            if message:
                row["verdict"], row["message"] = verdicts.WRONG_ANSWER, message
            else:
                _check_policy(problem, got, want, row, report)
        report.cases.append(row)
        if not row.get("skipped"):
            case_verdicts.append(row["verdict"])
            first_message.setdefault(row["verdict"], f"case {case.name}: {row['message']}")
    report.verdict = _worst(case_verdicts)
    report.message = first_message.get(report.verdict, "") if report.verdict != verdicts.ACCEPTED else \
        f"all {len(cases)} case(s) passed: values, gradients, residuals and checkpoint structure"


def _check_policy(problem: Problem, got: dict, want: dict, row: dict, report: Report) -> None:
    problems, rows, missing = rules.check_residuals(
        got["residuals"], want["residuals"], problem.residual_rules, problem.structure_rules)
    problems += rules.check_structure(got["structure"], problem.structure_rules)
    if "cost" in got:
        report.cost = got["cost"]
        problems += rules.check_cost(got["cost"], problem.cost_rules)
    if not report.residuals:  # the first inspected case is the one shown
        report.residuals, report.missing_residuals = rows, missing
        report.reference_residuals = want["residuals"]
        report.residual_bytes = sum(r["bytes"] for r in got["residuals"])
        report.reference_residual_bytes = sum(r["bytes"] for r in want["residuals"])
        report.structure = got["structure"]
        report.programs = got.get("programs", {})
    if problems:
        row["verdict"], row["message"] = verdicts.POLICY_VIOLATION, summarize(problems)


def summarize(problems: list[str], shown: int = 3) -> str:
    text = "; ".join(problems[:shown])
    if len(problems) > shown:
        text += f" (and {len(problems) - shown} more: see the residual table)"
    return text
