"""Remat Arena's grading engine: pure Python and JAX, never Django.

``grade(load_problem(path), source)`` returns a ``Report`` whose ``verdict`` is one of
``VERDICTS``. Submitted code only ever runs in a child process (see ``boundary``).
"""

from .data.report import Report
from .data.verdicts import VERDICTS
from .grading.grader import grade
from .packages.package import Problem
from .packages.package_loader import load_problem
from .packages.package_reader import PackageError

__all__ = ["grade", "load_problem", "Problem", "PackageError", "Report", "VERDICTS"]
