"""From a stored ``ProblemVersion`` back to the judge's ``Problem``, on the worker.

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

_loaded: dict[str, object] = {}
_lock = threading.Lock()


def _unpack(version, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=target.parent))
    try:
        folder = staging / version.slug
        for relative, text in version.files.items():
            path = folder / relative
            if folder.resolve() not in path.resolve().parents:
                raise PackageError(path, None, "path escapes the package folder")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        try:
            os.rename(staging, target)  # atomic: a concurrent worker sees all or nothing
        except OSError:
            if not target.exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def problem_for_version(version):
    """The judge's ``Problem`` for a stored version (cached per content hash in this process)."""
    with _lock:
        if version.content_hash in _loaded:
            return _loaded[version.content_hash]
    target = Path(settings.PROBLEM_CACHE_DIR) / version.content_hash
    if not target.exists():
        _unpack(version, target)
    problem = load_problem(target / version.slug)
    if problem.content_hash != version.content_hash:
        shutil.rmtree(target, ignore_errors=True)  # corrupted on disk: unpack afresh next time
        raise PackageError(target, None, f"unpacked package hashes to {problem.content_hash}, "
                                         f"expected {version.content_hash}")
    with _lock:
        _loaded[version.content_hash] = problem
    return problem
