"""What the long sweeps (the API fuzzing, the page audit's axe-core runs) cover on a run of the suite.

By default: every operation or page whose source changed (in the working tree, or in the commits
of the day before the last commit), plus a fixed sample of the rest, the same on every run and every
machine. A change reaches the main branch as several commits and CI runs on the last of them, so
"changed" reaches back a day of commits from it (by their dates, which any clone with history
has), not to the last commit alone: a landing whose last commit touched only the docs is still
swept where its earlier commits changed the code. Where the history cannot be read or is younger
than that (no git, a clone of depth one) nothing is known to be unchanged, and the sweep covers
everything. ``TEST_FULL_SWEEP=1`` covers everything too (docs/developers.md).
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
# How far back from the last commit "changed" reaches: a day covers the commits that land together
# (a working session's, with an earlier try's that had not landed).
CHANGED_WINDOW_S = 24 * 3600


def full_sweep() -> bool:
    return os.environ.get(FULL_SWEEP, "").strip().lower() in ("1", "true", "yes", "on")


def _git(*args: str) -> list[str] | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.split("\n") if done.returncode == 0 else None


def window_base() -> str | None:
    """The newest commit made more than ``CHANGED_WINDOW_S`` before the last one (committer dates);
    None when there is none in this clone (a short or shallow history)."""
    head_time = _git("log", "-1", "--format=%ct", "HEAD")
    if not head_time or not head_time[0].strip().isdigit():
        return None
    base = _git("rev-list", "-1", f"--before={int(head_time[0]) - CHANGED_WINDOW_S}", "HEAD")
    return base[0].strip() if base and base[0].strip() else None


@functools.cache
def changed_files() -> frozenset[str] | None:
    """Paths (from the repository's root) changed in the working tree or by the commits of the day
    before the last commit; None when git cannot say (everything then counts as changed)."""
    base = window_base()
    if base is None:
        return None
    parts = [
        _git("diff", "--name-only", "HEAD"),  # staged and unstaged
        _git("ls-files", "--others", "--exclude-standard"),  # new files not yet added
        _git("diff", "--name-only", base, "HEAD"),  # the day's commits
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
