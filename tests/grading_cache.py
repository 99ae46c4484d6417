"""A grading done once per test session for every test, every module and every xdist process that
reads it: the bank's packaged submissions under each remat, graded by the judge, their reports kept
in files under the session's shared temporary folder.

The key is what decides the report: the problem package's content hash, the source's hash, the
remat implementation, the grading's options and the judge's own code (every file of ``judge/`` as
the process first read it, and JAX's version): processes that run different judges never share a
report. A file lock per key: two processes asking for the same grading at once grade it once, the
second reads the first's. Each read gives a fresh copy of the report, as a grading of its own would.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import pickle
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_folder: list[Path] = []  # set once per process by ``use`` (tests/conftest.py)


def use(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _folder[:] = [folder]


def shared_root(basetemp: Path) -> Path:
    """The folder every xdist process of this session shares: each worker's basetemp is a
    ``popen-gwN`` folder inside it."""
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


@functools.cache
def judge_version() -> str:
    digest = hashlib.sha256(metadata.version("jax").encode())
    for path in sorted((ROOT / "judge").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def key(problem, source: str, remat: str, options: dict) -> str:
    parts = [judge_version(), problem.slug, problem.content_hash, remat, repr(sorted(options.items()))]
    parts.append(hashlib.sha256(source.encode()).hexdigest())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def graded_once(problem, source: str, *, remat: str, runner, **options):
    """``judge.grade(problem, source, runner=runner, **options)``, graded once per session;
    ``remat``: the runner's remat implementation (part of the key)."""
    from judge import grade  # here: the conftest that configures this module imports no JAX

    if not _folder:  # outside a configured session (a module imported alone): no sharing
        return grade(problem, source, runner=runner, **options)
    path = _folder[0] / key(problem, source, remat, options)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            return pickle.loads(path.read_bytes())
        report = grade(problem, source, runner=runner, **options)
        partial = path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(report))
        partial.replace(path)  # a reader never sees half a file
        return report


def graded_as_the_bank(problem, source: str):
    """``judge.grade(problem, source)`` on this process's runner with no option, as the bank's tests
    grade each packaged text under the default remat (tests/bank/test_bank_validates.py): a test
    elsewhere that grades a packaged text so reads the bank's grading, or grades it for the bank."""
    from judge.grading.grader import default_runner

    runner = default_runner()
    return graded_once(problem, source, remat="remat3" if runner.remat3 == "true" else "jax_remat", runner=runner)
