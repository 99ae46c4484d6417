"""Unprivileged uids for sandboxed children: one of its own per child while it lives.

A uid of its own makes RLIMIT_NPROC count only that child's threads, keeps children from
signalling each other, the zygote or the grader, and lets the zygote kill everything the child
left behind (``kill(-1)`` from a helper running as that uid) before the uid is handed out again.
No account needs to exist for these numbers.

Several zygotes may run on one machine (a Celery worker per process, the tests, the CLI), so a
uid is reserved machine-wide: by a POSIX record lock on its byte of a shared lock file, held by
the zygote while a child uses it. The kernel drops the locks of a zygote that dies.
"""

from __future__ import annotations

import fcntl
import os
import random

DEFAULT_BASE = 1_900_000_000
RANGE = 4096  # uids this machine's zygotes draw from
PER_ZYGOTE = 64  # children one zygote may have at once
LOCK_FILE = "/run/lock/judge-sandbox-uids"
FALLBACK_LOCK_FILE = "/tmp/judge-sandbox-uids"


class UidPool:
    def __init__(self, base: int | None = None):
        self.base = int(os.environ.get("JUDGE_SANDBOX_UID_BASE", DEFAULT_BASE)) if base is None else base
        self.held: set[int] = set()
        self._fd = self._open()

    @staticmethod
    def _open() -> int:
        for path in (LOCK_FILE, FALLBACK_LOCK_FILE):
            try:
                # never closed while the zygote lives: closing any descriptor of this file would drop
                # every lock the process holds on it
                return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError:
                continue
        raise OSError("no place for the sandbox's uid lock file")

    def acquire(self) -> int | None:
        if len(self.held) >= PER_ZYGOTE:
            return None
        start = random.randrange(RANGE)
        for step in range(RANGE):
            index = (start + step) % RANGE
            if index in self.held:
                continue
            try:
                fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, index)
            except OSError:
                continue  # another zygote's child has it
            self.held.add(index)
            return self.base + index
        return None

    def release(self, uid: int) -> None:
        index = uid - self.base
        self.held.discard(index)
        fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, index)
