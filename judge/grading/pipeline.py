"""From a source to per-case evidence: the submission's child, then the verifier.

``run`` is used alike for a submission and for the reference (whose results become the expected
ones). The child traces the source and exports its programs; the verifier, started at the same
time so that its start-up overlaps the child's work, computes the values and gradients from those
programs (see ``judge.in_child.verify``). What comes back from either is checked before it is believed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import numpy as np

from ..data import messages, verdicts
from ..data.evidence import COST_REVISION, Aval, Cost
from ..data.messages import CaseError, CaseInput, ChildRequest, ChildResponse, TracedCase, VerifyCase, VerifyRequest
from ..data.specs import generate
from ..in_child import gate, verify
from ..packages.limits import Limits
from ..packages.package import Case, Problem
from ..runners.boundary import ChildResult, Runner
from ..source import Source
from . import compare, compiled_programs

MALFORMED = "the submission's process sent back a malformed result"
CONTRADICTED = (
    "the report of your program's trace does not match the program the judge ran, so the judge "
    "decided on what it measured itself"
)


# Set (to anything but 0) where every sandbox layer must hold: code then runs nowhere else.
REQUIRE_ALL_LAYERS = "JUDGE_REQUIRE_ALL_LAYERS"


def require_all_layers() -> bool:
    return os.environ.get(REQUIRE_ALL_LAYERS, "") not in ("", "0")


def admit(source: Source | str, runner: Runner) -> tuple[str, str] | None:
    """Whether ``source`` may run in a child of ``runner`` at all, asked first by every way code
    gets run (a grading, Inspect, a look from the command line, the explorer): None, or why not as
    (verdict, message): the static gate refused it (before any process starts), the sandbox would
    not start, or a layer is missing where REQUIRE_ALL_LAYERS asks for all of them."""
    refusal = gate.check(source)
    if refusal:
        return refusal.verdict, refusal.message
    try:
        missing = runner.missing_layers()
    except RuntimeError as exc:  # the sandbox itself would not start
        return verdicts.INTERNAL_ERROR, f"the judge's sandbox is unavailable: {exc}"
    if missing and require_all_layers():
        names = ", ".join(f"{name} ({why})" for name, why in missing.items())
        return verdicts.INTERNAL_ERROR, (
            f"refusing to grade: {REQUIRE_ALL_LAYERS} is set and these sandbox layers are missing: {names}"
        )
    return None


@dataclass
class Outcome:
    """What a source did: either a failure of the whole run, or evidence per case."""

    failure: tuple[str, str] | None = None  # (verdict, message)
    cases: list[TracedCase] = field(default_factory=list)
    stdout: str = ""


def case_inputs(problem: Problem, case: Case, salt: int | None = None, drawn: dict | None = None) -> list:
    """The case's arguments, generated from its seed (each argument from a stream of its own).

    With a ``salt``, the hidden inputs of the same shapes that only the verifier sees. ``drawn``:
    the arrays already drawn for this run; cases of the same seed and sizes (the explorer's plans)
    get the same array objects, which a request then carries once (``protocol.encode``).
    """
    values = []
    for index, arg in enumerate(problem.args):
        if arg.static:
            values.append(case.static.get(arg.name, arg.default))
            continue
        key = (case.seed, index, salt, tuple(arg.spec.shape(case.dims)))
        if drawn is None or key not in drawn:
            rng = np.random.default_rng([case.seed, index] if salt is None else [case.seed, index, salt])
            array = generate(arg.spec, arg.spec.shape(case.dims), arg.init, arg.scale, rng)
            if drawn is None:
                values.append(array)
                continue
            drawn[key] = array
        values.append(drawn[key])
    return values


def child_request(
    problem: Problem, source: str, cases, *, fwd_bwd: bool = False, cost: bool = False, baseline: bool = False
) -> ChildRequest:
    static_mask = [a.static for a in problem.args]
    array_positions = [i for i, a in enumerate(problem.args) if not a.static]
    drawn: dict = {}
    return ChildRequest(
        source=source,
        entry=problem.entry,
        arg_names=[a.name for a in problem.args],
        wrt=[array_positions.index(i) for i in problem.wrt_indices],
        cases=[
            CaseInput(c.name, c.seed, static_mask, case_inputs(problem, c, drawn=drawn), sample=c.sample) for c in cases
        ],
        fwd_bwd=fwd_bwd,
        cost=cost or problem.cost_rules.active,
        baseline=baseline and problem.cost_rules.saves_memory,
        harness=problem.harness,
        output_kb=problem.limits.output_kb,
    )


def run(
    problem: Problem,
    source: str,
    cases,
    runner: Runner,
    *,
    salt: int,
    expected_outputs: dict[str, list[Aval]] | None = None,
    fwd_bwd: bool = False,
    cost: bool = False,
    baseline: bool = False,
    numbers: bool = True,
    scope: str | None = None,
) -> Outcome:
    """Run ``source`` on ``cases``. ``expected_outputs`` (per case name, the reference's output
    types) shapes the cotangents; without it (the reference itself) the child's own are used.
    ``baseline``: the reference's run, which also measures the memory it holds without checkpoints.
    ``numbers``: False where no values are compared (the explorer): the verifier reads each case's
    figures from the programs and runs nothing, so it needs no hidden inputs and sends back no
    values or gradients. ``scope``: whose compiled programs the verifier may load and keep (one
    learner's: ``judge.grading.compiled_programs``); None keeps nothing."""
    cases = sorted(cases, key=lambda c: not c.sample)  # samples first: their printed output is shown
    request = child_request(problem, source, cases, fwd_bwd=fwd_bwd, cost=cost, baseline=baseline)
    verifier = runner.prepare(problem.limits, role="verify")
    try:
        child = trace(request, runner, problem.limits)
        outcome = Outcome(failure=child.failure, stdout=child.stdout)
        if child.failure is not None:
            return outcome
        response = child.response
        outcome.cases = response.cases
        traced = [c for c in response.cases if c.error is None]
        if not traced:
            return outcome
        by_case = {c.name: c for c in cases}
        outputs = expected_outputs or {c.name: c.outputs for c in traced}
        fwd, bwd = response.programs
        sent = {c.name: c for c in request.cases}
        bundle = messages.program_indices([sent[c.name] for c in traced])  # the child traced the same way
        drawn: dict = {}
        verify_cases = [
            _verify_case(problem, by_case[c.name], request, outputs[c.name], salt if numbers else None, drawn, program)
            for c, program in zip(traced, bundle)
        ]
        # the verifier's own output (XLA's, on hidden cases too) is not the learner's: not kept
        verify_request, asked = compiled_programs.ask(
            scope,
            VerifyRequest(fwd, bwd, request.wrt, verify_cases, cost=request.cost, estimates=cost, numbers=numbers),
        )
        checked = verifier.run(verify_request.to_wire(), problem.limits)
        _merge(
            outcome,
            checked,
            traced,
            outputs,
            numbers,
            lambda answer: compiled_programs.answered(asked, verify_request, answer),
        )
        return outcome
    finally:
        verifier.discard()


@dataclass
class Child:
    """What the submission's child answered: its response, checked, or why there is none to use."""

    response: ChildResponse | None
    failure: tuple[str, str] | None  # (verdict, message)
    stdout: str


def trace(request: ChildRequest, runner: Runner, limits: Limits) -> Child:
    """One round trip to a child of ``runner``: the request sent, its answer read and checked (every
    way a source is run goes through here: a grading, Inspect, a look from the command line)."""
    result = runner.run(request.to_wire(), limits)
    if result.outcome != "ok":
        return Child(None, limit_failure(result), result.stdout)
    try:
        response = messages.parse_child_response(result.response, [c.name for c in request.cases])
    except messages.Malformed:
        return Child(None, (verdicts.RUNTIME_ERROR, MALFORMED), result.stdout)
    if response.error is not None:
        return Child(response, (response.error.verdict, response.error.text()), result.stdout)
    return Child(response, None, result.stdout)


def _verify_case(
    problem: Problem,
    case: Case,
    request: ChildRequest,
    outputs: list[Aval],
    salt: int | None,
    drawn: dict,
    program: int,
) -> VerifyCase:
    """``drawn``: what this run has drawn already, shared by cases of the same seed and sizes.
    Without a ``salt`` (nothing will run: ``run``'s ``numbers``), no hidden inputs. ``program``:
    the bundle's program this case runs (cases of the same shapes share one)."""
    public = next(c for c in request.cases if c.name == case.name).args
    arrays = [a for a, arg in zip(public, problem.args) if not arg.static]
    types = tuple((o.dtype, tuple(o.shape)) for o in outputs)
    if (case.seed, types) not in drawn:
        drawn[(case.seed, types)] = verify.cotangent(outputs, case.seed)
    if salt is None:
        return VerifyCase(case.name, arrays, drawn[(case.seed, types)], [], [], program)
    hidden = case_inputs(problem, case, salt)
    hidden_arrays = [a for a, arg in zip(hidden, problem.args) if not arg.static]
    return VerifyCase(
        case.name,
        arrays,
        drawn[(case.seed, types)],
        hidden_arrays,
        verify.cotangent(outputs, case.seed, salt),
        program,
    )


def _merge(
    outcome: Outcome, checked, traced: list[TracedCase], expected_outputs: dict, numbers: bool, on_answer=None
) -> None:
    """Put the verifier's numbers into the child's cases, or turn its failure into the outcome's."""
    if checked.outcome != "ok":
        outcome.failure = limit_failure(checked)
        return
    try:
        response = messages.parse_verify_response(checked.response, [c.name for c in traced], numbers)
    except messages.Malformed:
        outcome.failure = (verdicts.INTERNAL_ERROR, "the verifier sent back a malformed result")
        return
    if response.error is not None:
        outcome.failure = (response.error.verdict, response.error.text())
        return
    if on_answer is not None:
        on_answer(response)
    for case, found in zip(traced, response.cases):
        case.outputs = found.outputs
        if not response.checked:
            message = compare.compare_types(found.outputs, expected_outputs[case.name])
            if message:
                case.error = CaseError("bad_output", message)
            else:
                case.error = CaseError("runtime_error", "not checked (an earlier case failed)", skipped=True)
            continue
        if _types(case.residuals) != _types(found.residuals):
            # The report is not of the program that runs (a child that rewrote it): nothing in it
            # is believed, and the trusted facts decide alone (judge.grading.trusted).
            case.contradicted, case.residuals = True, []
        case.residual_types = found.residuals
        case.value, case.grads = found.value, found.grads
        case.hidden_value, case.hidden_grads = found.hidden_value, found.hidden_grads
        case.saved = found.saved
        case.cost = _cost(found.cost, case.cost)


def _cost(verified: Cost | None, said: Cost | None) -> Cost | None:
    """The step's figures as the verifier measured them; of what the child said, only the wording
    (the memory picture's timeline) and the reference's memory without checkpoints (asked of the
    reference's child only, never believed of a submission's: ``child_request``'s ``baseline``)."""
    if verified is None:
        return None
    return replace(
        verified,
        revision=COST_REVISION,
        timeline=said.timeline if said is not None else None,
        plain_held_peak_bytes=said.plain_held_peak_bytes if said is not None else None,
    )


def _types(avals) -> list:
    return [(a.dtype, tuple(a.shape), a.memory) for a in avals]


def limit_failure(result: ChildResult) -> tuple[str, str]:
    verdict = verdicts.CHILD_OUTCOMES[result.outcome]
    if verdict == verdicts.INTERNAL_ERROR:
        return verdict, result.detail
    return verdict, (f"your submission {result.detail}" if result.detail else verdicts.DESCRIPTIONS[verdict])
