"""The reference's results, computed once per problem version and kept in memory and on disk.

The key is the package's content hash (every file of the problem folder), the case names and
the version of what is stored, so editing a problem or upgrading the judge or JAX recomputes it.
An entry also holds the salt of the hidden inputs the verifier runs on: the parent draws it once
per problem version and keeps it with the results computed from it. The cache directory is
never visible to a sandboxed child.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import warnings
from importlib import metadata
from pathlib import Path

from ..data import messages, protocol
from ..data.paths import PROJECT_ROOT
from ..packages.package import Problem
from ..runners.boundary import remat3_chosen
from . import graded_cases

FORMAT = 8  # bump when what is stored, or how it is computed, changes (2: costs count every primitive; 3: memory held;
# 4: the reference is always measured, with its timeline; 5-6: the residuals' values, fingerprinted; 7: costs
# measured by the verifier, on the program it compiled; 8: every record's fields written, ``judge.data.records``)
FILE_CAP = 256 << 20


class ReferenceError_(RuntimeError):
    """The problem's own reference failed: the package is broken, not the submission."""


def default_directory() -> Path:
    return Path(os.environ.get("JUDGE_CACHE_DIR") or PROJECT_ROOT / "var" / "judge-cache") / "expected"


class ExpectedCache:
    """Reference results per (package content hash, case names): computed once, then reused.

    ``directory=None`` keeps them in memory only.
    """

    def __init__(self, directory: Path | str | None = None):
        self.directory = Path(directory) if directory is not None else None
        self._data: dict = {}
        self._locks: dict = {}
        self._lock = threading.Lock()

    def key(self, problem: Problem, cases, runner=None) -> str:
        """Also by the runner's remat implementation: the reference's residuals may differ under it."""
        remat3 = getattr(runner, "remat3", None) or remat3_chosen() or ""
        text = "\n".join(
            [str(FORMAT), metadata.version("jax"), problem.content_hash, *(c.name for c in cases)]
            + (["remat3"] if remat3.strip().lower() in ("1", "true", "yes", "on") else [])
        )
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, problem: Problem, cases, runner) -> dict:
        """``{"salt": int, "cases": {name: TracedCase}}``; raises ``ReferenceError_``."""
        key = self.key(problem, cases, runner)
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # one computation per key, however many graders ask at once
            if key not in self._data:
                self._data[key] = self._load(key) or self._compute(problem, cases, runner, key)
            return self._data[key]

    def _path(self, key: str) -> Path | None:
        return self.directory / f"{key}.msg" if self.directory is not None else None

    def _load(self, key: str) -> dict | None:
        path = self._path(key)
        if path is None or not path.is_file():
            return None
        try:
            stored = protocol.parse_buffer(path.read_bytes(), FILE_CAP)
            if not isinstance(stored, dict) or stored.get("key") != key:
                return None
            cases = {name: messages.TracedCase.from_dict(case, strict=True) for name, case in stored["cases"].items()}
        except (OSError, protocol.ProtocolError, messages.Malformed):
            return None  # unreadable, from an interrupted write or damaged: computed again
        return {"salt": int(stored["salt"]), "cases": cases}

    def _compute(self, problem: Problem, cases, runner, key: str) -> dict:
        salt = secrets.randbits(62)
        # measured always: its memory over a gradient step is drawn beside the submission's
        outcome = graded_cases.run(problem, problem.reference, cases, runner, salt=salt, cost=True, baseline=True)
        if outcome.failure:
            verdict, message = outcome.failure
            raise ReferenceError_(f"the reference of {problem.slug} failed: {verdict}: {_of_the_reference(message)}")
        by_name = {}
        for case in outcome.cases:
            if case.error is not None:
                raise ReferenceError_(
                    f"the reference of {problem.slug} failed on case {case.name}: "
                    f"{_of_the_reference(case.error.text())}"
                )
            by_name[case.name] = case
        entry = {"salt": salt, "cases": by_name}
        try:
            self._store(key, entry)
        except OSError as exc:  # a read-only deployment still grades; it recomputes after a restart
            warnings.warn(f"expected results not stored in {self.directory}: {exc}", RuntimeWarning, stacklevel=2)
        return entry

    def _store(self, key: str, entry: dict) -> None:
        path = self._path(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(
                protocol.encode(
                    {
                        "key": key,
                        "salt": entry["salt"],
                        "cases": {name: case.to_dict() for name, case in entry["cases"].items()},
                    }
                )
            )
        os.replace(temporary, path)  # atomic: a reader sees the old file or the whole new one


def _of_the_reference(message: str) -> str:
    """A failure worded for a learner ("your submission printed more than 8 KiB"), said of the
    reference: its reader is the problem's author or the operator, whose own code it is not."""
    return message.replace("your submission ", "it ", 1)
