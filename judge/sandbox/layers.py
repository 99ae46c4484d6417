"""The names of the sandbox's layers, as ``python -m judge doctor`` and every report's notes show them.

Child layers are applied by ``harden`` in each child before any submitted code runs; the
parent-side ones (the static gate, the wall-clock kill, trusted verification) live in the grader
and runners and are always active.
"""

from __future__ import annotations

SESSION = "session"
DESCRIPTORS = "descriptors"
ENVIRONMENT = "environment"
NAMESPACES = "namespaces"
FILESYSTEM = "filesystem"
WORKDIR = "workdir"
RLIMITS = "rlimits"
UID = "uid"
NO_NEW_PRIVS = "no_new_privs"
SECCOMP = "seccomp"

ZYGOTE = "zygote"
GATE = "gate"
WALL_CLOCK = "wall_clock"
VERIFY = "verification"

DESCRIPTIONS = {
    ZYGOTE: "warm zygote: JAX imported once (backend not initialised), one fork per child",
    GATE: "static gate and run-time module views: reviewed names only, no private or dunder attributes, no exec/eval/open",
    SESSION: "own session and process group",
    DESCRIPTORS: "every descriptor closed but the child's own pipes",
    ENVIRONMENT: "scrubbed environment",
    NAMESPACES: "new network, mount and IPC namespaces",
    FILESYSTEM: "minimal read-only root: no problem bank, settings, /etc or home directories",
    WORKDIR: "empty private working directory",
    RLIMITS: "rlimits: address space (MALLOC_ARENA_MAX=2), CPU, processes, file size, open files, no core",
    UID: "unprivileged uid, one per child (unprivileged judge: own user and PID namespaces, no other process to signal)",
    NO_NEW_PRIVS: "no_new_privs",
    SECCOMP: "seccomp filter: no sockets, exec, ptrace, mount, namespaces or new processes",
    WALL_CLOCK: "the parent kills the child's whole process group at the wall-clock limit",
    VERIFY: "values, gradients and residual sizes recomputed where no submitted code ran",
}

# In the order they are applied in a child.
CHILD_LAYERS = (SESSION, DESCRIPTORS, ENVIRONMENT, NAMESPACES, FILESYSTEM, WORKDIR, RLIMITS, UID, NO_NEW_PRIVS, SECCOMP)
ALL_LAYERS = (ZYGOTE, GATE) + CHILD_LAYERS + (WALL_CLOCK, VERIFY)


def missing_note(missing: dict) -> str:
    """The one line every report carries while some layer is missing on this machine."""
    parts = [f"{name} ({why})" for name, why in missing.items()]
    return "sandbox layers missing on this machine: " + "; ".join(parts)
