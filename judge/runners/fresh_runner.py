"""``FreshInterpreterRunner``: one new Python interpreter per child, the naive design.

Kept as the benchmark's baseline (``python -m judge bench`` measures the warm zygote against it);
the grader's default is ``judge.runners.zygote_runner.ZygoteRunner``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from ..data import protocol
from ..data.paths import PROJECT_ROOT
from ..packages.limits import Limits
from ..sandbox import layers
from .boundary import RESULT_CAP, ChildResult, Runner, child_environment, interpret, kill_group, pump


class FreshInterpreterRunner(Runner):
    """One new Python interpreter per child, with rlimits, its own session, a scrubbed
    environment and a fresh temporary directory: simple and slow (JAX is imported every time).

    The naive design, kept as the benchmark's baseline; it applies none of the kernel layers
    (namespaces, minimal root, uid, no_new_privs, seccomp), and says so in every report.
    """

    name = "fresh interpreter"
    APPLIED = ("gate", "session", "descriptors", "environment", "workdir", "rlimits", "wall_clock", "verification")

    def missing_layers(self) -> dict:
        return {
            name: "not applied by the fresh-interpreter runner (the naive baseline)"
            for name in layers.ALL_LAYERS
            if name not in self.APPLIED
        }

    def prepare(self, limits: Limits, role: str = "run") -> "_Deferred":
        return _Deferred(self)

    def run(self, request: dict, limits: Limits) -> ChildResult:
        result_r, result_w = os.pipe()
        with tempfile.TemporaryDirectory(prefix="judge-") as workdir:
            started = time.monotonic()
            # The child sets its own rlimits before anything else: code between fork and exec
            # (preexec_fn) can deadlock a parent whose other threads hold locks (JAX's, say).
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-c",
                    "import sys; sys.path.insert(0, sys.argv[1]); from judge.in_child.child import entry; entry()",
                    str(PROJECT_ROOT),
                    "--result-fd",
                    str(result_w),
                    "--limits",
                    json.dumps(dataclasses.asdict(limits)),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(result_w,),
                cwd=workdir,
                env=child_environment(),
                start_new_session=True,
            )
            os.close(result_w)
            raw, reason = pump(
                {"stdout": proc.stdout.fileno(), "result": result_r},
                started + limits.wall_s,
                {"stdout": limits.output_kb * 1024, "result": RESULT_CAP},
                send=(proc.stdin.fileno(), protocol.encode(request, share=True)),
            )
            proc.stdin.detach()  # pump closed it
            if reason:
                kill_group(proc.pid)
            usage_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
            returncode = proc.wait()
            cpu_s = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - usage_before
            kill_group(proc.pid)  # anything it left behind in its group
            proc.stdout.close()
            os.close(result_r)
            return interpret(raw, reason, returncode, limits, time.monotonic() - started, cpu_s)


class _Deferred:
    """A fresh interpreter is only started when its request is known (nothing to warm up)."""

    def __init__(self, runner: FreshInterpreterRunner):
        self.runner = runner

    def run(self, request: dict, limits: Limits) -> ChildResult:
        return self.runner.run(request, limits)

    def discard(self) -> None:
        pass
