"""A problem under tighter limits than its package declares, for tests of what a limit does.

The reference's results are keyed by the package's content, not its limits, so whichever grading
asks first computes them under its own problem's limits. A test's tight wall clock must bind the
submission it grades: were the reference computed under it, a loaded host (the CI's two passes
side by side) would time the reference out and turn the expected verdict into ``internal_error``.
So the reference is computed first, under the limits its package declares.
"""

from __future__ import annotations

import dataclasses

from judge.grading.grader import EXPECTED, ExpectedCache, default_runner
from judge.packages.limits import Limits
from judge.packages.package import Problem


def tightened(problem: Problem, limits: Limits, cache: ExpectedCache | None = None, runner=None) -> Problem:
    """``problem`` under ``limits``, its reference's results already in ``cache`` (the judge's by default)."""
    (cache or EXPECTED).get(problem, problem.cases, runner or default_runner())
    return dataclasses.replace(problem, limits=limits)
