"""``validate``: a problem proves its checker (the Kattis ``verifyproblem`` idea).

Every packaged submission must get the verdict its folder names, and at least one must be
accepted. The reference itself must be accepted too.

The work is a list of steps (``steps``), graded one by one (``run_step``), each returning its
row and the full grade report: ``validate`` runs them all for the command line; the site runs
them itself, storing rows as they come and reading the reference's residual signature from its
report.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .data import verdicts
from .grading.grader import Report, grade
from .packages.package import Problem

NO_ACCEPTED = "no packaged submission in submissions/accepted/"


def first_sentence(message: str) -> str:
    """A case's message, without its "case NAME: " label, up to its first full stop."""
    text = re.sub(r"^case [^:]+: ", "", message)
    return text.split(". ")[0]


@dataclass
class ValidationRow:
    submission: str
    expected: str
    actual: str
    message: str
    # what a learner reads first: the cause in their terms where the judge found one (JAX's own
    # error text only where it did not)
    summary: str = ""

    @property
    def ok(self) -> bool:
        return self.expected == self.actual


@dataclass
class ValidationResult:
    problem: str
    rows: list[ValidationRow] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and all(r.ok for r in self.rows)


@dataclass(frozen=True)
class Step:
    expected: str
    path: Path

    def name(self, problem: Problem) -> str:
        return self.path.relative_to(problem.path).as_posix()


def remat3() -> bool:
    """The children trace with JAX 0.10.2's newer remat (``JAX_REMAT3``, read as JAX reads it)."""
    return os.environ.get("JAX_REMAT3", "").strip().lower() in ("1", "t", "true", "y", "yes", "on")


def steps(problem: Problem) -> list[Step]:
    """The reference first, then the packaged submissions by verdict folder and name; under
    ``JAX_REMAT3`` a file's verdict is the one the package's ``[remat3]`` gives it, if any."""
    found = [Step(verdicts.ACCEPTED, problem.path / "reference.py")]
    for verdict, paths in problem.submissions.items():
        found += [Step(verdict, Path(path)) for path in paths]
    if remat3():
        found = [Step(problem.remat3_expected.get(s.name(problem), s.expected), s.path) for s in found]
    return found


def package_errors(problem: Problem) -> list[str]:
    """What is wrong with the package whatever the grades: no accepted packaged submission."""
    return [] if problem.submissions.get(verdicts.ACCEPTED) else [NO_ACCEPTED]


def run_step(problem: Problem, step: Step, runner=None) -> tuple[ValidationRow, Report]:
    report = grade(problem, step.path.read_text(encoding="utf-8"), runner=runner)
    summary = report.cause or first_sentence(report.message)
    return ValidationRow(step.name(problem), step.expected, report.verdict, report.message, summary), report


def validate(problem: Problem, runner=None) -> ValidationResult:
    result = ValidationResult(problem.slug, errors=package_errors(problem))
    for step in steps(problem):
        result.rows.append(run_step(problem, step, runner)[0])
    return result
