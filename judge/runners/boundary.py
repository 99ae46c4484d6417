"""The process boundary: how the grader talks to a child process and what a child's end means.

The request goes in on the child's stdin, the response comes back length-prefixed on a pipe of
its own, the child's printed output is read on a third pipe and capped, and the whole process
group is killed at the wall-clock limit (``pump``, ``kill_group``). What the end of a child that
sent no response means (``ChildOutcome``: ``time_limit``, ``output_limit``, ``crashed``: a process
the kernel killed, for its memory among other reasons) is decided once, for every runner, in
``classify_exit``, which ``interpret`` calls; its verdict is ``ChildOutcome.verdict``
(``judge.data.verdicts``). What an error a living child reports means (``memory_limit`` among them)
is decided once too, in ``judge.data.verdicts.error_kind``.

Two runners stand on it: ``judge.runners.zygote_runner.ZygoteRunner`` (the default: children forked
from a warm zygote, inside every sandbox layer) and ``judge.runners.fresh_runner.FreshInterpreterRunner``
(one new interpreter per child with rlimits only: the naive design, kept as the benchmark's
baseline). What a runner offers the grader is declared by ``Runner``.
"""

from __future__ import annotations

import os
import selectors
import signal
import time
from dataclasses import dataclass, field
from typing import Protocol

from ..data import protocol, records
from ..data.messages import SandboxFailed
from ..data.paths import PROJECT_ROOT
from ..data.verdicts import ChildOutcome
from ..packages.limits import Limits
from ..sandbox import layers

RESULT_CAP = 32 << 20
# Why the parent stopped reading a child (``pump``'s reasons) that decide its outcome whatever it sent.
STOPS = ("time", "stdout", "result")


@dataclass
class ChildResult:
    outcome: ChildOutcome
    response: dict | None = None
    stdout: str = ""
    wall_s: float = 0.0
    detail: str = ""
    notes: list[str] = field(default_factory=list)


class PreparedChild(Protocol):
    """A child started ahead of its request (a verifier warms up while the submission traces)."""

    def run(self, request: dict, limits: Limits) -> ChildResult:
        """Send the request, wait for the child's end, and say what it means."""

    def discard(self) -> None:
        """The child is not needed after all: kill it."""


class Runner(Protocol):
    """What the grader needs of a runner: children for requests, and which sandbox layers hold."""

    name: str

    def prepare(self, limits: Limits, role: str = "run") -> PreparedChild:
        """A child that waits for its request; ``role="verify"`` warms up the verifier first."""

    def missing_layers(self) -> dict[str, str]:
        """The sandbox layers that do not hold here: {layer: why}."""

    def run(self, request: dict, limits: Limits) -> ChildResult:
        return self.prepare(limits).run(request, limits)

    def notes(self) -> list[str]:
        """The line every report carries while some layer is missing."""
        missing = self.missing_layers()
        return [layers.missing_note(missing)] if missing else []


REMAT3 = "JAX_REMAT3"


def remat3_chosen() -> str | None:
    """The grader's choice of remat implementation (``JAX_REMAT3``), None when it made none."""
    return os.environ.get(REMAT3)


def child_environment(remat3: str | None = None) -> dict:
    """A scrubbed environment: nothing from the grader's (secrets, database URLs) goes through.

    ``remat3``: the value of ``JAX_REMAT3`` for the children; None: the grader's own choice."""
    remat3 = remat3 if remat3 is not None else remat3_chosen()
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
        # compiling, LLVM's optimisation level most of the rest (see docs/design/performance.md). Every
        # item must start with "--": XLA silently ignores what follows one that does not.
        "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false --xla_backend_optimization_level=0 "
        "--xla_cpu_use_fusion_emitters=false --xla_cpu_use_xnnpack=false "
        "--xla_cpu_parallel_codegen_split_count=1",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "HOME": "/nonexistent",
        "LANG": "C.UTF-8",
        # Which remat implementation JAX uses is part of what is judged: the grader's choice
        # (JAX 0.10.2's `jax_remat3`, the next release's default) must reach the children.
        **({REMAT3: remat3} if remat3 is not None else {}),
    }


def classify_exit(
    returncode: int, limits: Limits, wall_s: float, cpu_s: float, stopped: str | None = None
) -> tuple[ChildOutcome, str]:
    """What a child that sent no response means for the learner, and why, in their words.

    ``stopped``: why the parent stopped reading it and killed it (``pump``'s reason: "time", or
    the name of the stream that passed its cap), which decides before its exit status does."""
    if stopped == "time":
        return ChildOutcome.TIME_LIMIT, f"ran longer than {limits.wall_s:g} s"
    if stopped == "stdout":
        return ChildOutcome.OUTPUT_LIMIT, f"printed more than {limits.output_kb} KiB"
    if stopped == "result":
        return ChildOutcome.OUTPUT_LIMIT, f"returned more than {RESULT_CAP >> 20} MiB of results"
    if returncode < 0:
        sig = signal.Signals(-returncode)
        if sig == signal.SIGXCPU or cpu_s >= limits.cpu_s:
            return ChildOutcome.TIME_LIMIT, f"used more than {limits.cpu_s} s of CPU time"
        if sig == signal.SIGKILL and wall_s >= limits.wall_s:
            return ChildOutcome.TIME_LIMIT, f"ran longer than {limits.wall_s:g} s"
        if sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGKILL):
            return ChildOutcome.CRASHED, f"died with {sig.name} (this can mean it ran out of memory)"
        return ChildOutcome.CRASHED, f"died with {sig.name}"
    return ChildOutcome.CRASHED, f"exited with status {returncode} before reporting a result"


def pump(streams: dict, deadline: float, caps: dict, send: tuple[int, bytes] | None = None) -> tuple[dict, str | None]:
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
                        outgoing = outgoing[os.write(key.fd, outgoing[: 1 << 16]) :]
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


def interpret(
    raw: dict,
    reason: str | None,
    returncode: int,
    limits: Limits,
    wall_s: float,
    cpu_s: float,
    hardened: bool | None = None,
) -> ChildResult:
    """Turn what came back from a child into a ChildResult; shared by every runner.

    ``hardened``: whether the child reported, on a pipe it closes before it reads its request,
    that its sandbox was in place (None: the runner has no such pipe). A child may only blame
    its sandbox (``internal_error``, retried, never the learner's fault) before that point;
    after it, such a claim comes from the submission and is not believed.
    """
    stdout = bytes(raw.get("stdout", b"")).decode("utf-8", "replace")
    body = bytes(raw.get("result", b""))
    if reason in STOPS or not body:
        outcome, detail = classify_exit(returncode, limits, wall_s, cpu_s, reason)
        # what a chatty child printed is cut to what the page can show
        shown = stdout[:1000] if reason == "stdout" else stdout
        return ChildResult(outcome, stdout=shown, wall_s=wall_s, detail=detail)
    try:
        response = protocol.parse_buffer(body, RESULT_CAP)
    except protocol.ProtocolError as exc:
        return ChildResult(ChildOutcome.PROTOCOL_ERROR, stdout=stdout, wall_s=wall_s, detail=str(exc))
    if not isinstance(response, dict):
        return ChildResult(
            ChildOutcome.PROTOCOL_ERROR, stdout=stdout, wall_s=wall_s, detail="response is not an object"
        )
    if response.get(records.KIND) == SandboxFailed.KIND:
        if hardened is False:
            try:
                detail = SandboxFailed.from_wire(response).detail
            except records.Malformed as exc:
                detail = str(exc)
            return ChildResult(
                ChildOutcome.SANDBOX_ERROR,
                stdout=stdout,
                wall_s=wall_s,
                detail=f"the sandbox could not be set up: {detail}",
            )
        return ChildResult(
            ChildOutcome.PROTOCOL_ERROR,
            stdout=stdout,
            wall_s=wall_s,
            detail="sent back a sandbox failure from inside its sandbox",
        )
    return ChildResult(ChildOutcome.OK, response=response, stdout=stdout, wall_s=wall_s)


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
