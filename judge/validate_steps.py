"""``validate``, one packaged submission at a time, for callers that show progress.

The same checks as ``validate.validate`` (the reference and every packaged submission get the
verdict their folder names; at least one packaged submission is accepted), but as a list of
steps graded one by one, each step returning its row and the full grade report, so that the site
can store rows as they come and read the reference's residual signature from its report.
``validate.validate`` could be written on top of this; it is left as it is here.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import verdicts
from .grader import Report, grade
from .package import Problem
from .validate import ValidationRow

NO_ACCEPTED = "no packaged submission in submissions/accepted/"


@dataclass(frozen=True)
class Step:
    expected: str
    path: Path

    def name(self, problem: Problem) -> str:
        return self.path.relative_to(problem.path).as_posix()


def steps(problem: Problem) -> list[Step]:
    """The reference first, then the packaged submissions by verdict folder and name."""
    found = [Step(verdicts.ACCEPTED, problem.path / "reference.py")]
    for verdict, paths in problem.submissions.items():
        found += [Step(verdict, Path(path)) for path in paths]
    return found


def package_errors(problem: Problem) -> list[str]:
    """What is wrong with the package whatever the grades: no accepted packaged submission."""
    return [] if problem.submissions.get(verdicts.ACCEPTED) else [NO_ACCEPTED]


def run_step(problem: Problem, step: Step, runner=None) -> tuple[ValidationRow, Report]:
    report = grade(problem, step.path.read_text(encoding="utf-8"), runner=runner)
    return ValidationRow(step.name(problem), step.expected, report.verdict, report.message), report
