"""A grading's cases, each the way its problem declares it: by values, or by figures only.

A case of ``problem.toml`` marked ``figures_only = true`` stands for a model at the sizes it is
trained at (a Llama MLP, a GPT-2 block), whose arrays would take the sandbox gigabytes and whose
step would take minutes to run. Its arrays are never drawn: it goes through the explorer's
pipeline by types (``shapes_pipeline``), where the submission's child traces placeholders and the
verifier checks, lowers and measures the exported programs without running them (``numbers=False``).
Its residuals, structure and cost are then judged as any case's; its values are not, which the
problem's other cases compare at small sizes. As in every grading, the figures a verdict rests
on are the verifier's: the child's report of what it saves is believed only where the verifier's
types of the same program confirm it (``pipeline._merge``).
"""

from __future__ import annotations

from ..data.evidence import Aval
from ..data.messages import CaseError
from ..packages.package import Problem
from ..runners.boundary import Runner
from . import compare, pipeline, shapes_pipeline


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
    scope: str | None = None,
) -> pipeline.Outcome:
    """``pipeline.run`` on the cases that compare values, then ``shapes_pipeline.run`` on the
    figures-only ones (not started when the first run failed or stopped at a case's error: those
    cases are then not run, as a case after a failing one never is). A figures-only case's outputs,
    as the verifier typed them, must still be the reference's types."""
    valued = [c for c in cases if not c.figures_only]
    figured = [c for c in cases if c.figures_only]
    outcome = pipeline.Outcome()
    if valued:
        outcome = pipeline.run(
            problem,
            source,
            valued,
            runner,
            salt=salt,
            expected_outputs=expected_outputs,
            fwd_bwd=fwd_bwd,
            cost=cost,
            baseline=baseline,
            scope=scope,
        )
        stopped = len(outcome.cases) < len(valued) or any(c.error is not None for c in outcome.cases)
        if outcome.failure is not None or stopped:
            return outcome
    if not figured:
        return outcome
    sized = shapes_pipeline.run(
        problem, source, figured, runner, fwd_bwd=fwd_bwd, cost=cost, baseline=baseline, graded=True
    )
    for case in sized.cases:  # the verifier's types of the outputs, against the reference's
        if case.error is None and expected_outputs is not None:
            wrong = compare.compare_types(case.outputs, expected_outputs[case.name])
            if wrong:
                case.error = CaseError("bad_output", wrong)
    outcome.stdout += sized.stdout
    outcome.failure = sized.failure
    outcome.cases += sized.cases
    return outcome
