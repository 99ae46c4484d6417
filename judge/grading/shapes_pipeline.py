"""``pipeline.run`` from the arguments' dtypes and shapes alone: the explorer's way.

The same two children as a grading (the submission's, which traces and exports; the verifier,
which checks, lowers and measures), asked by types instead of arrays
(``judge.data.shape_messages``): no argument is generated or sent, whatever its size, and
nothing is run. Besides the walk of each program (held bytes, peak, FLOPs: the figures a verdict
rests on), the verifier compiles each case's step alone and reads XLA's memory and cost analysis
of it, within ``compile_s`` seconds in all.

``describe`` asks the submission's child what a name of the source stands for (a function, or a
module of Equinox or Flax NNX with its parameters' types): the one thing about a module that only
running the learner's code can say.
"""

from __future__ import annotations

from ..data import messages, records, verdicts
from ..data.messages import CaseInput, ChildRequest, Failed, VerifyCase, VerifyRequest
from ..data.shape_messages import (
    DESCRIBE_ANSWERS,
    ArrayType,
    DescribeModule,
    ModuleDescribed,
    TraceShapes,
    VerifyShapes,
    placeholder,
)
from ..packages.limits import Limits
from ..packages.package import Problem
from ..runners.boundary import Runner
from . import pipeline


def _types(problem: Problem, case) -> list[ArrayType]:
    return [
        ArrayType(arg.spec.dtype, [int(d) for d in arg.spec.shape(case.dims)]) for arg in problem.args if not arg.static
    ]


def run(
    problem: Problem,
    source: str,
    cases,
    runner: Runner,
    *,
    compile_s: float = 0.0,
    fwd_bwd: bool = False,
    cost: bool = False,
    baseline: bool = False,
    graded: bool = False,
) -> pipeline.Outcome:
    """Trace, export and measure ``source`` on ``cases`` from types; ``compile_s``: XLA's analysis
    of each case's step compiled alone, for at most that long (0: none). ``fwd_bwd``, ``cost`` and
    ``baseline`` ask the child what ``pipeline.run`` asks it; ``graded``: a grading's figures-only
    cases, whose samples are the grading's (what they print is shown, the first one's memory drawn)."""
    static_mask = [a.static for a in problem.args]
    array_positions = [i for i, a in enumerate(problem.args) if not a.static]

    def inputs(case, fill):
        types = iter(_types(problem, case))
        return [
            case.static.get(a.name, a.default) if a.static else (placeholder(next(types)) if fill else None)
            for a in problem.args
        ]

    sent = [CaseInput(c.name, c.seed, static_mask, inputs(c, False), sample=graded and c.sample) for c in cases]
    request = TraceShapes(
        ChildRequest(
            source=source,
            entry=problem.entry,
            arg_names=[a.name for a in problem.args],
            wrt=[array_positions.index(i) for i in problem.wrt_indices],
            cases=sent,
            fwd_bwd=fwd_bwd,
            cost=cost or problem.cost_rules.active,
            baseline=baseline and problem.cost_rules.saves_memory,
            harness=problem.harness,
            output_kb=problem.limits.output_kb,
        ),
        [_types(problem, c) for c in cases],
    )
    verifier = runner.prepare(problem.limits, role="verify")
    try:
        child = pipeline.trace(request, runner, problem.limits)
        outcome = pipeline.Outcome(failure=child.failure, stdout=child.stdout)
        if child.failure is not None:
            return outcome
        outcome.cases = child.response.cases
        traced = [c for c in child.response.cases if c.error is None]
        if not traced:
            return outcome
        fwd, bwd = child.response.programs
        by_name = {c.name: c for c in cases}
        # which program of the bundle runs each case, as the child reckons it on its placeholders
        placed = [CaseInput(c.name, 0, static_mask, inputs(by_name[c.name], True)) for c in traced]
        program_of = dict(zip((c.name for c in traced), messages.program_indices(placed)))
        outputs = {c.name: c.outputs for c in traced}
        verify = VerifyShapes(
            VerifyRequest(
                fwd,
                bwd,
                request.trace.wrt,
                [VerifyCase(c.name, [], [], [], [], program_of[c.name]) for c in traced],
                cost=True,
                numbers=False,
            ),
            [_types(problem, by_name[c.name]) for c in traced],
            [[ArrayType(o.dtype, list(o.shape)) for o in c.outputs] for c in traced],
            compile_s=compile_s,
        )
        checked = verifier.run(verify.to_wire(), problem.limits)
        pipeline._merge(outcome, checked, traced, outputs, False)
        return outcome
    finally:
        verifier.discard()


def describe(source: str, entry: str, runner: Runner, limits: Limits) -> ModuleDescribed | tuple[str, str]:
    """What ``entry`` stands for in ``source``, as the submission's child reads it (the source
    loaded in the sandbox, as a trace loads it); or the failure (verdict, message)."""
    result = runner.run(DescribeModule(source, entry).to_wire(), limits)
    if result.outcome != "ok":
        return pipeline.limit_failure(result)
    try:
        answer = records.read_message(result.response, DESCRIBE_ANSWERS)
    except records.Malformed:
        return verdicts.RUNTIME_ERROR, pipeline.MALFORMED
    if isinstance(answer, Failed):
        return answer.error.verdict, answer.error.text()
    return answer
