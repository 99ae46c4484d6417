"""A look at what a source saves, before it is graded: one case traced in the submission's child,
the same sandbox and runner as a grading, and no verdict.

``look`` runs a ready request (the command line builds one from argument specs): what comes back
is what the child read from the traced program. ``inspect`` runs a problem's first sample case as
the site's "Inspect" button does, through the child and the verifier (whose figures of the step's
cost are those a verdict rests on), and compares nothing.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from ..data import verdicts
from ..data.evidence import DEVICE, ResidualRow
from ..data.messages import ChildRequest, TracedCase
from ..data.report import Report
from ..packages.limits import Limits
from ..packages.package import Problem
from ..runners.boundary import Runner
from ..source import Source
from . import graded_cases, pipeline
from .learner_terms import in_terms
from .pipeline import MALFORMED


@dataclass
class Look:
    """Either why the source could not be inspected (a verdict's name and its message), or the case."""

    failure: tuple[str, str] | None = None
    case: TracedCase | None = None
    stdout: str = ""


def look(request: ChildRequest, runner: Runner, limits: Limits) -> Look:
    """The first case of ``request``, traced in a child of ``runner``: nothing is compared."""
    refused = pipeline.admit(request.source, runner)
    if refused:
        return Look(refused)
    child = pipeline.trace(request, runner, limits)
    if child.failure is not None:
        return Look(child.failure, stdout=child.stdout)
    case = child.response.cases[0]
    if case.error is not None:
        return Look((case.error.verdict, case.error.text()), stdout=child.stdout)
    return Look(case=case, stdout=child.stdout)


def inspect(problem: Problem, source: str, runner: Runner) -> Report:
    """What ``source`` saves on the problem's first sample case, as a report without a verdict
    (``verdict`` empty; on a failure, the failure's verdict and message, as "Run samples" says
    them): its residuals, unmarked, its checkpoints, its forward and backward programs and its
    gradient step's cost with the timeline of its memory. The cost's figures are the verifier's,
    measured as a verdict's are, so that Inspect, the verdict and the leaderboard agree; the
    timeline (the memory picture) is the child's drawing of the same step."""
    started = time.monotonic()
    sample = problem.samples[0] if problem.samples else problem.cases[0]
    report = Report(problem.slug, "", "")
    report.peak_limit_bytes = problem.cost_rules.max_peak_bytes  # Inspect says how the step stands against it
    written = Source(source)  # read once: by the gate, then for the learner's expressions
    refused = pipeline.admit(written, runner)
    if refused:
        report.verdict, report.message = refused
        return report
    outcome = graded_cases.run(problem, source, [sample], runner, salt=secrets.randbits(62), fwd_bwd=True, cost=True)
    report.stdout = outcome.stdout
    case = outcome.cases[0] if outcome.cases else None
    if outcome.failure is not None or case is None or case.error is not None:
        report.verdict, report.message = (
            outcome.failure or (case.error.verdict, case.error.text()) if case else (verdicts.RUNTIME_ERROR, MALFORMED)
        )
    else:
        # named by the learner's own expressions, as a verdict's rows are
        report.residuals = [ResidualRow(**vars(in_terms(r, written))) for r in case.residuals]
        report.residual_bytes = sum(
            r.bytes for r in case.residual_types if r.memory == DEVICE
        )  # as the verifier counted
        report.host_residual_bytes = sum(r.bytes for r in case.residual_types if r.memory != DEVICE)
        report.structure, report.programs, report.cost = case.structure, case.programs or {}, case.cost
        report.message = (
            f"on the sample case {sample.name}: your code saves {len(case.residual_types)} residuals, "
            f"{report.residual_bytes} bytes"
        )
    report.time_s = round(time.monotonic() - started, 4)
    return report
