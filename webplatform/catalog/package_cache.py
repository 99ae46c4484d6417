"""From a stored ``ProblemVersion`` (or a draft being validated) back to the judge's ``Problem``,
on the worker.

Workers grade exactly the version a submission names, not whatever ``problems/`` holds on their
machine: the package files stored with the version are unpacked once per content hash into
``PROBLEM_CACHE_DIR`` and loaded with ``judge.load_problem``, whose content hash must match.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

from django.conf import settings

from judge import PackageError, load_problem
from judge.packages.archive import write_files

_loaded: dict[str, object] = {}
_lock = threading.Lock()


def _unpack(files: dict[str, str], slug: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=target.parent))
    try:
        write_files(files, staging / slug)  # refuses paths that escape the folder
        try:
            os.rename(staging, target)  # atomic: a concurrent worker sees all or nothing
        except OSError:
            if not target.exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def problem_for_files(*, files: dict[str, str], slug: str, content_hash: str):
    """The judge's ``Problem`` for package files that must hash to ``content_hash`` (cached per
    content hash in this process): stored versions, and drafts being validated."""
    with _lock:
        if content_hash in _loaded:
            return _loaded[content_hash]
    target = Path(settings.PROBLEM_CACHE_DIR) / content_hash
    if not target.exists():
        _unpack(files, slug, target)
    problem = load_problem(target / slug)
    if problem.content_hash != content_hash:
        shutil.rmtree(target, ignore_errors=True)  # corrupted on disk: unpack afresh next time
        raise PackageError(target, None, f"unpacked package hashes to {problem.content_hash}, expected {content_hash}")
    with _lock:
        _loaded[content_hash] = problem
    return problem


def problem_for_version(version):
    """The judge's ``Problem`` for a stored version."""
    return problem_for_files(files=version.files, slug=version.slug, content_hash=version.content_hash)
