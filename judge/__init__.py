"""Remat Arena's grading engine: pure Python and JAX, never Django.

``grade(load_problem(path), source)`` returns a ``Report`` whose ``verdict`` is one of
``VERDICTS``. Submitted code only ever runs in a child process (see ``boundary``).
"""

from .grader import grade
from .package import Problem
from .package_loader import load_problem
from .package_reader import PackageError
from .report import Report
from .verdicts import VERDICTS

__all__ = ["grade", "load_problem", "Problem", "PackageError", "Report", "VERDICTS"]
