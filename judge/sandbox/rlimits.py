"""The rlimits layer: address space, CPU time, file size, open files, processes, no core dumps.

``apply_rlimits`` is what every child sets before it runs anything of the submission's, the
fresh interpreter's too (``judge.in_child.child.entry``); ``harden`` adds the limits that only mean
something inside the full sandbox (open files, and processes for a uid of the child's own).
"""

from __future__ import annotations

import resource

from ..packages.limits import Limits

MIB = 1 << 20
MAX_THREADS = 64  # RLIMIT_NPROC for a child's own uid: XLA's thread pools fit, a thread bomb does not
MAX_OPEN_FILES = 256
MAX_FILE_BYTES = 16 * MIB


def apply_rlimits(limits: Limits) -> None:
    """Called in the child before it runs anything of the submission's (MALLOC_ARENA_MAX=2 in
    its environment keeps glibc from reserving address space per thread)."""
    memory = limits.memory_mb * MIB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
