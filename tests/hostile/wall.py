"""The second wall around the hostile tests: if the sandbox had a hole, the test fails, the machine stays up.

The corpus runs in a subprocess placed in a pids and memory cgroup of its own (nested in the
test's own cgroups, where /sys/fs/cgroup is writable: cgroup v1 or v2), or else under strict
rlimits, and with a wall-clock timeout. Afterwards every process left in the cgroup is killed.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
MAX_TASKS = 512
MAX_MEMORY = 8 << 30
MAX_CPU_S = 900


def _own_cgroup(controller: str | None) -> Path:
    """This process's cgroup directory for a v1 ``controller``, or (None) its v2 directory."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if (controller in controllers.split(",")) if controller else controllers == "":
            group = CGROUP_ROOT / (controller or "") / path.lstrip("/")
            if group.is_dir():
                return group
    raise ValueError(f"no cgroup hierarchy for {controller or 'v2'}")


class Wall:
    """``with Wall() as wall: wall.run(cmd, ...)``; ``wall.kind`` says which wall was built."""

    def __init__(self):
        self.groups: list[Path] = []
        self.kind = "rlimits"

    def __enter__(self) -> "Wall":
        name = f"judge-hostile-{os.getpid()}"
        for build in (self._cgroup_v1, self._cgroup_v2):
            try:
                build(name)
                return self
            except (OSError, ValueError):
                self._remove()
        self.kind = "rlimits (no writable cgroup here)"
        return self

    def _make(self, base: Path, name: str, limits: dict) -> None:
        group = base / name
        group.mkdir()
        self.groups.append(group)
        for file, value in limits.items():
            (group / file).write_text(str(value))

    def _cgroup_v1(self, name: str) -> None:
        self._make(_own_cgroup("pids"), name, {"pids.max": MAX_TASKS})
        self._make(_own_cgroup("memory"), name, {"memory.limit_in_bytes": MAX_MEMORY})
        self.kind = "cgroup v1 (pids, memory)"

    def _cgroup_v2(self, name: str) -> None:
        self._make(_own_cgroup(None), name, {"pids.max": MAX_TASKS, "memory.max": MAX_MEMORY})
        self.kind = "cgroup v2 (pids, memory)"

    @property
    def description(self) -> dict:
        """What the walled process needs to put itself inside (``enter``), as JSON."""
        return {"groups": [str(g) for g in self.groups]}

    def run(self, command: list[str], timeout_s: float, env: dict) -> subprocess.CompletedProcess:
        """Run ``command``, which calls ``enter`` first thing (the test process runs JAX's
        threads, so nothing may run between its fork and exec)."""
        return subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=timeout_s, start_new_session=True
        )

    def survivors(self) -> list[int]:
        pids = set()
        for group in self.groups:
            try:
                pids.update(int(p) for p in (group / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return sorted(pids)

    def _remove(self) -> None:
        for group in self.groups:
            try:
                group.rmdir()
            except OSError:
                pass
        self.groups = []

    def __exit__(self, *exc) -> None:
        deadline = time.monotonic() + 10
        while self.survivors() and time.monotonic() < deadline:
            for pid in self.survivors():  # only what the walled subprocess started is in here
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        self._remove()


def enter(description: dict) -> None:
    """Called by the walled process before it starts anything: join the cgroups (every process it
    starts then stays inside), or fall back on strict rlimits."""
    for group in description["groups"]:
        Path(group, "cgroup.procs").write_text(str(os.getpid()))
    if not description["groups"]:
        resource.setrlimit(resource.RLIMIT_AS, (MAX_MEMORY, MAX_MEMORY))
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_TASKS, MAX_TASKS))
    resource.setrlimit(resource.RLIMIT_CPU, (MAX_CPU_S, MAX_CPU_S))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
