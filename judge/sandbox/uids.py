"""Unprivileged uids for sandboxed children: one of its own per child while it lives.

A uid of its own makes RLIMIT_NPROC count only that child's threads, keeps children from
signalling each other, the zygote or the grader, and lets the zygote kill everything the child
left behind (``kill(-1)`` from a helper running as that uid) before the uid is handed out again.
No account needs to exist for these numbers.
"""
from __future__ import annotations

import os

DEFAULT_BASE = 1_900_000_000
SIZE = 64


class UidPool:
    def __init__(self, base: int | None = None, size: int = SIZE):
        base = int(os.environ.get("JUDGE_SANDBOX_UID_BASE", DEFAULT_BASE)) if base is None else base
        self._free = list(range(base, base + size))

    def acquire(self) -> int | None:
        return self._free.pop(0) if self._free else None

    def release(self, uid: int) -> None:
        self._free.append(uid)
