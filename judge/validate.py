"""``validate``: a problem proves its checker (the Kattis ``verifyproblem`` idea).

Every packaged submission must get the verdict its folder names, and at least one must be
accepted. The reference itself must be accepted too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import verdicts
from .grader import grade
from .package import Problem


@dataclass
class ValidationRow:
    submission: str
    expected: str
    actual: str
    message: str

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


def validate(problem: Problem, runner=None) -> ValidationResult:
    result = ValidationResult(problem.slug)
    entries = [(verdicts.ACCEPTED, problem.path / "reference.py")]
    for verdict, paths in problem.submissions.items():
        entries += [(verdict, path) for path in paths]
    if not problem.submissions.get(verdicts.ACCEPTED):
        result.errors.append("no packaged submission in submissions/accepted/")
    for expected, path in entries:
        report = grade(problem, Path(path).read_text(encoding="utf-8"), runner=runner)
        name = str(Path(path).relative_to(problem.path))
        result.rows.append(ValidationRow(name, expected, report.verdict, report.message))
    return result
