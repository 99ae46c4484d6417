"""Running submitted code in a child process, with limits, and reading back what it says.

This module owns the process boundary: the request goes in on the child's stdin, the response
comes back length-prefixed on a pipe of its own, the child's printed output is read on a third
pipe and capped, and the whole process group is killed at the wall-clock limit. The decision of
what a dead, silent or chatty child means (``time_limit``, ``memory_limit``, ``output_limit``,
``runtime_error``) is made here, once, for every runner.

Two runners share it: ``judge.zygote.ZygoteRunner`` (the default: children forked from a warm
zygote, inside every sandbox layer) and ``FreshInterpreterRunner`` here, one new interpreter per
child with rlimits only: the naive design, kept as the benchmark's baseline.

A runner has ``run(request, limits)``, ``prepare(limits, role)`` (a child started ahead, that
waits for its request: ``.run(request, limits)`` or ``.discard()``), ``notes()`` and
``missing_layers()``.
"""
from __future__ import annotations

import dataclasses
import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from . import protocol
from .package import Limits
from .paths import PROJECT_ROOT

RESULT_CAP = 32 << 20
MIB = 1 << 20


@dataclass
class ChildResult:
    outcome: str  # ok, time_limit, memory_limit, output_limit, crashed, protocol_error
    response: dict | None = None
    stdout: str = ""
    wall_s: float = 0.0
    detail: str = ""
    notes: list[str] = field(default_factory=list)


def child_environment() -> dict:
    """A scrubbed environment: nothing from the grader's (secrets, database URLs) goes through."""
    return {
        "PATH": "/usr/bin:/bin",
        "OPENBLAS_NUM_THREADS": "1",  # numpy's BLAS threads would make the zygote unsafe to fork
        "PYTHONPATH": str(PROJECT_ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "MALLOC_ARENA_MAX": "2",
        "JAX_PLATFORMS": os.environ.get("JUDGE_JAX_PLATFORMS", "cpu"),
        # Small programs, each compiled once: XLA's compile time dominates, not their run time.
        # Measured on checkpoint_dot_policy's verifier: XNNPACK fusions alone cost 0.4 s of
        # compiling, LLVM's optimisation level most of the rest (see README, "Speed"). Every
        # item must start with "--": XLA silently ignores what follows one that does not.
        "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false --xla_backend_optimization_level=0 "
                     "--xla_cpu_use_fusion_emitters=false --xla_cpu_use_xnnpack=false "
                     "--xla_cpu_parallel_codegen_split_count=1",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "HOME": "/nonexistent",
        "LANG": "C.UTF-8",
    }


def apply_rlimits(limits: Limits) -> None:
    """Called in the child before it runs anything of the submission's (MALLOC_ARENA_MAX=2 in
    its environment keeps glibc from reserving address space per thread)."""
    memory = limits.memory_mb * MIB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * MIB, 16 * MIB))


def classify_exit(returncode: int, limits: Limits, wall_s: float, cpu_s: float) -> tuple[str, str]:
    """What a child that died without a valid response means for the learner."""
    if returncode < 0:
        sig = signal.Signals(-returncode)
        if sig == signal.SIGXCPU or cpu_s >= limits.cpu_s:
            return "time_limit", f"used more than {limits.cpu_s} s of CPU time"
        if sig == signal.SIGKILL and wall_s >= limits.wall_s:
            return "time_limit", f"ran longer than {limits.wall_s:g} s"
        if sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGKILL):
            return "crashed", f"died with {sig.name} (this can mean it ran out of memory)"
        return "crashed", f"died with {sig.name}"
    return "crashed", f"exited with status {returncode} before reporting a result"


def pump(streams: dict, deadline: float, caps: dict, send: tuple[int, bytes] | None = None
         ) -> tuple[dict, str | None]:
    """Read the named file descriptors until they close, a cap is passed, or the deadline; and
    meanwhile write ``send`` (descriptor, bytes: the request) as the child reads it, then close it.

    Returns the bytes read per name and, if reading stopped early, why ('time' or the name of
    the stream that passed its cap).
    """
    data = {name: bytearray() for name in streams}
    sel = selectors.DefaultSelector()
    for name, fd in streams.items():
        sel.register(fd, selectors.EVENT_READ, name)
    outgoing = None
    if send is not None:
        out_fd, outgoing = send[0], memoryview(send[1])
        os.set_blocking(out_fd, False)
        sel.register(out_fd, selectors.EVENT_WRITE, None)
    reason = None
    try:
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                reason = "time"
                break
            for key, _ in sel.select(timeout=min(remaining, 0.5)):
                if key.data is None:  # the request's pipe has room
                    try:
                        outgoing = outgoing[os.write(key.fd, outgoing[:1 << 16]):]
                    except BrokenPipeError:
                        outgoing = outgoing[:0]  # the child stopped reading: its problem
                    if not outgoing:
                        sel.unregister(key.fd)
                        os.close(key.fd)
                    continue
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                data[key.data] += chunk
                if len(data[key.data]) > caps[key.data]:
                    reason = key.data
                    break
            if reason:
                break
    finally:
        if outgoing is not None and send[0] in sel.get_map():
            sel.unregister(send[0])
            os.close(send[0])
        sel.close()
    return data, reason


def interpret(raw: dict, reason: str | None, returncode: int, limits: Limits,
              wall_s: float, cpu_s: float, hardened: bool | None = None) -> ChildResult:
    """Turn what came back from a child into a ChildResult; shared by every runner.

    ``hardened``: whether the child reported, on a pipe it closes before it reads its request,
    that its sandbox was in place (None: the runner has no such pipe). A child may only blame
    its sandbox (``internal_error``, retried, never the learner's fault) before that point;
    after it, such a claim comes from the submission and is not believed.
    """
    stdout = bytes(raw.get("stdout", b"")).decode("utf-8", "replace")
    if reason == "time":
        return ChildResult("time_limit", stdout=stdout, wall_s=wall_s,
                           detail=f"ran longer than {limits.wall_s:g} s")
    if reason == "stdout":
        return ChildResult("output_limit", stdout=stdout[:1000], wall_s=wall_s,
                           detail=f"printed more than {limits.output_kb} KiB")
    if reason == "result":
        return ChildResult("output_limit", wall_s=wall_s, stdout=stdout,
                           detail=f"returned more than {RESULT_CAP // MIB} MiB of results")
    body = bytes(raw.get("result", b""))
    if not body:
        outcome, detail = classify_exit(returncode, limits, wall_s, cpu_s)
        return ChildResult(outcome, stdout=stdout, wall_s=wall_s, detail=detail)
    try:
        response = protocol.parse_buffer(body, RESULT_CAP)
    except protocol.ProtocolError as exc:
        return ChildResult("protocol_error", stdout=stdout, wall_s=wall_s, detail=str(exc))
    if not isinstance(response, dict):
        return ChildResult("protocol_error", stdout=stdout, wall_s=wall_s, detail="response is not an object")
    if response.get("status") == "sandbox_error":
        if hardened is False:
            return ChildResult("sandbox_error", stdout=stdout, wall_s=wall_s,
                               detail=f"the sandbox could not be set up: {response.get('detail')}")
        return ChildResult("protocol_error", stdout=stdout, wall_s=wall_s,
                           detail="sent back a sandbox failure from inside its sandbox")
    return ChildResult("ok", response=response, stdout=stdout, wall_s=wall_s)


class FreshInterpreterRunner:
    """One new Python interpreter per child, with rlimits, its own session, a scrubbed
    environment and a fresh temporary directory: simple and slow (JAX is imported every time).

    The naive design, kept as the benchmark's baseline; it applies none of the kernel layers
    (namespaces, minimal root, uid, no_new_privs, seccomp), and says so in every report.
    """

    name = "fresh interpreter"
    APPLIED = ("gate", "session", "descriptors", "environment", "workdir", "rlimits", "wall_clock", "verification")

    def missing_layers(self) -> dict:
        from .sandbox import layers

        return {name: "not applied by the fresh-interpreter runner (the naive baseline)"
                for name in layers.ALL_LAYERS if name not in self.APPLIED}

    def notes(self) -> list[str]:
        from .sandbox import layers

        return [layers.missing_note(self.missing_layers())]

    def prepare(self, limits: Limits, role: str = "run") -> "_Deferred":
        return _Deferred(self)

    def run(self, request: dict, limits: Limits) -> ChildResult:
        result_r, result_w = os.pipe()
        with tempfile.TemporaryDirectory(prefix="judge-") as workdir:
            started = time.monotonic()
            # The child sets its own rlimits before anything else: code between fork and exec
            # (preexec_fn) can deadlock a parent whose other threads hold locks (JAX's, say).
            proc = subprocess.Popen(
                [sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                 "from judge.child import entry; entry()", str(PROJECT_ROOT), "--result-fd", str(result_w),
                 "--limits", json.dumps(dataclasses.asdict(limits))],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                pass_fds=(result_w,), cwd=workdir, env=child_environment(), start_new_session=True,
            )
            os.close(result_w)
            raw, reason = pump({"stdout": proc.stdout.fileno(), "result": result_r}, started + limits.wall_s,
                               {"stdout": limits.output_kb * 1024, "result": RESULT_CAP},
                               send=(proc.stdin.fileno(), protocol.encode(request)))
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


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
