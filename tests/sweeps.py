"""What the long sweeps (the API fuzzing, the page audit's axe-core runs) cover on a run of the suite.

By default: every operation or page whose source changed (in the working tree, or in the last
commit), plus a fixed sample of the rest, the same on every run and every machine. A clean clone
computes the same as a developer's tree: the last commit's files come from ``git diff HEAD~1``,
which any clone with history has. Where that cannot be read (no git, a clone of depth one) nothing
is known to be unchanged, and the sweep covers everything. ``TEST_FULL_SWEEP=1`` covers everything
too (docs/developers.md).
"""

from __future__ import annotations

import functools
import os
import random
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FULL_SWEEP = "TEST_FULL_SWEEP"
# The share of the unchanged operations or pages swept on every run, and the seed that picks them.
SAMPLE_SHARE = 0.3
SAMPLE_SEED = 20261207


def full_sweep() -> bool:
    return os.environ.get(FULL_SWEEP, "").strip().lower() in ("1", "true", "yes", "on")


def _git(*args: str) -> list[str] | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.split("\n") if done.returncode == 0 else None


@functools.cache
def changed_files() -> frozenset[str] | None:
    """Paths (from the repository's root) changed in the working tree or by the last commit; None
    when git cannot say (everything then counts as changed)."""
    parts = [
        _git("diff", "--name-only", "HEAD"),  # staged and unstaged
        _git("ls-files", "--others", "--exclude-standard"),  # new files not yet added
        _git("diff", "--name-only", "HEAD~1", "HEAD"),  # the last commit's
    ]
    if any(part is None for part in parts):
        return None
    return frozenset(line.strip() for part in parts for line in part if line.strip())


def touched(prefixes) -> bool:
    """Whether a changed file lies under one of ``prefixes`` (True when the changes are unknown)."""
    changed = changed_files()
    return changed is None or any(path.startswith(tuple(prefixes)) for path in changed)


def fixed_sample(keys, share: float = SAMPLE_SHARE) -> set:
    """The same ``share`` of ``keys`` on every run (at least one)."""
    ordered = sorted(set(keys))
    if not ordered:
        return set()
    return set(random.Random(SAMPLE_SEED).sample(ordered, max(1, round(len(ordered) * share))))
