"""The zygote server: the process that has imported JAX once and forks one sandboxed child per run.

Forking after JAX's backend is initialised deadlocks (XLA's threads do not survive a fork), and
forking after a bare ``import jax`` is safe, so the zygote imports everything the children need
and never touches a device. At start it forks a probe child (``probe.examine``) to learn which
sandbox layers hold on this machine and which modules the grading path imports lazily; it
imports those too, checks that it is still single-threaded, and freezes its heap for the
garbage collector (so that children do not copy every page they only read).

Protocol with the parent (``judge.runners.zygote_runner.ZygoteRunner``), over a SOCK_SEQPACKET socket pair,
in the typed messages of ``judge.data.zygote_messages``: ``spawn`` (a role and limits) with five
descriptors attached (the child's request pipe, output pipe, result pipe, "hardened" pipe and a
status socket). The zygote answers on the status socket ``spawned`` (or ``unavailable``), then,
once the child is reaped, ``exited``. ``kill`` on the status socket kills the child's process
group; closing it does too (and so does anything there that is not a message).
When the parent goes away (end of file on the control socket) the zygote kills its children and
exits.

Each child, right after the fork: arranges its descriptors, then ``harden``s itself with the
layers the probe found working (failing closed), and only then reads its request.
"""

from __future__ import annotations

import gc
import os
import selectors
import shutil
import signal
import socket
import sys
import tempfile
import time

from ..data import zygote_messages as messages
from ..data.paths import PROJECT_ROOT
from ..packages.limits import Limits
from ..sandbox import filesystem, layers
from ..sandbox.uids import UidPool
from .harden import HARDENED_FD, RESULT_FD, SANDBOX_EXIT, Plan, SandboxError, harden

PROBE_TIMEOUT_S = 300


def main(control_fd: int) -> None:
    control = socket.socket(fileno=control_fd)
    try:
        zygote = Zygote(control)
    except BaseException as exc:  # noqa: BLE001 - the parent must hear why
        _send(control, messages.Unavailable(f"{type(exc).__name__}: {exc}"))
        os._exit(1)
    zygote.serve()
    os._exit(0)


def _send(sock: socket.socket, message: messages.Record) -> None:
    try:
        sock.send(messages.encode(message))
    except OSError:
        pass  # the other side is gone; nothing to tell


def thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def _preload() -> None:
    """What every child needs, imported once here (none of it initialises a backend): the judge's
    child side, and every module a submission may import (so that a child, whose uid may not
    read the interpreter's own directories without the minimal root, never has to find one)."""
    import importlib

    from jax import export  # noqa: F401

    from .. import inspection  # noqa: F401
    from ..data import protocol  # noqa: F401
    from ..in_child import allowed, child, guard, verify  # noqa: F401
    from ..inspection import cost, program_cost, programs, provenance, structure  # noqa: F401
    from ..sandbox import seccomp  # noqa: F401
    from . import probe  # noqa: F401

    for name in sorted(allowed.MODULES):
        importlib.import_module(name)
    seccomp.build()  # loads libseccomp now: the child cannot look for shared libraries later


class Zygote:
    def __init__(self, control: socket.socket):
        self.control = control
        _preload()
        if thread_count() != 1:
            raise RuntimeError(f"the zygote has {thread_count()} threads after importing JAX; forking is unsafe")
        self.environment = dict(os.environ)
        self.uids = UidPool() if os.geteuid() == 0 else None
        self.root_dir = tempfile.mkdtemp(prefix="judge-root-")
        self.exposed = filesystem.exposed_paths(PROJECT_ROOT)
        self.children: dict[int, dict] = {}
        self.available: tuple[str, ...] = layers.CHILD_LAYERS
        report = self._probe()
        self.available = tuple(n for n in layers.CHILD_LAYERS if report["layers"][n]["ok"])
        for name in report["modules"]:
            _import_quietly(name)
        if thread_count() != 1:
            raise RuntimeError("the zygote became multi-threaded while importing the grading path's modules")
        if report["sample"]:
            raise RuntimeError(f"a sample grading fails inside the sandbox: {report['sample']}")
        gc.collect()
        gc.freeze()
        layer_states = {name: messages.LayerState(**state) for name, state in report["layers"].items()}
        _send(control, messages.Ready(os.getpid(), layer_states))

    # ------------------------------------------------------------------ children

    def plan(self, limits: Limits, uid: int | None) -> Plan:
        workdir = None
        if layers.FILESYSTEM not in self.available:
            workdir = tempfile.mkdtemp(prefix="judge-work-")
            if uid is not None:
                os.chown(workdir, uid, uid)
        return Plan(
            layers=self.available,
            limits=limits,
            environment=self.environment,
            uid=uid,
            root_dir=self.root_dir,
            exposed=self.exposed,
            workdir=workdir,
        )

    def fork_child(self, plan: Plan, fds: dict, body) -> int:
        """Fork; in the child, put ``fds`` (target -> source) in place, harden, run ``body``."""
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid:
            return pid
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _arrange(fds)
            body(plan)
        except SandboxError as exc:
            _sandbox_error(f"{exc.layer}: {exc.detail}")
        except BaseException as exc:  # noqa: BLE001
            _sandbox_error(f"{type(exc).__name__}: {exc}")
        finally:
            os._exit(SANDBOX_EXIT)

    def _probe(self) -> dict:
        from ..data import protocol
        from . import probe

        uid = self.uids.acquire() if self.uids else None
        plan = Plan(
            layers=layers.CHILD_LAYERS,
            limits=Limits(),
            environment=self.environment,
            uid=uid,
            root_dir=self.root_dir,
            exposed=self.exposed,
            workdir=tempfile.mkdtemp(prefix="judge-work-"),
        )
        if uid is not None:
            os.chown(plan.workdir, uid, uid)
        read_end, write_end = os.pipe()
        null = os.open(os.devnull, os.O_RDWR)

        def body(plan: Plan) -> None:
            evidence, missing = harden(plan, strict=False)
            report = probe.examine(plan, evidence, missing, PROJECT_ROOT)
            protocol.write_message(RESULT_FD, report)
            os._exit(0)

        pid = self.fork_child(plan, {0: null, 1: null, 2: 2, RESULT_FD: write_end, HARDENED_FD: null}, body)
        os.close(write_end)
        os.close(null)
        try:
            report = _read_report(read_end, PROBE_TIMEOUT_S)
        finally:
            os.close(read_end)
            _kill(pid)
            os.waitpid(pid, 0)
            self._clean_up(uid, plan.workdir)
        if report.get("kind") == "sandbox_error":  # judge.data.messages.SandboxFailed
            raise RuntimeError(f"the probe child failed: {report.get('detail')}")
        return report

    def spawn(self, message: messages.Spawn, fds: list[int]) -> None:
        stdin_r, out_w, result_w, hardened_w, status_fd = fds
        status = socket.socket(fileno=status_fd)
        uid = None
        if self.uids is not None:
            uid = self.uids.acquire()
            if uid is None:
                _send(status, messages.Unavailable("too many sandboxed children at once"))
                status.close()
                for fd in (stdin_r, out_w, result_w, hardened_w):
                    os.close(fd)
                return
        plan = self.plan(message.limits, uid)
        role, ahead = message.role, message.ahead
        gc.freeze()  # whatever the zygote allocated since: not scanned, not copied, by the child
        try:
            fds = {0: stdin_r, 1: out_w, 2: out_w, RESULT_FD: result_w, HARDENED_FD: hardened_w}
            pid = self.fork_child(plan, fds, lambda plan: _serve_one(plan, role, ahead))
        except OSError as exc:
            _send(status, messages.Unavailable(f"fork failed: {exc}"))
            status.close()
            self._clean_up(uid, plan.workdir)
            return
        finally:
            for fd in (stdin_r, out_w, result_w, hardened_w):
                os.close(fd)
        self.children[pid] = {"status": status, "uid": uid, "workdir": plan.workdir, "listening": True}
        self.selector.register(status, selectors.EVENT_READ, pid)
        _send(status, messages.Spawned(pid, uid))

    def reap(self) -> None:
        while True:
            try:
                pid, wait_status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = self.children.pop(pid, None)
            if child is None:
                continue
            code = -os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else os.WEXITSTATUS(wait_status)
            if child["listening"]:
                _send(child["status"], messages.Exited(code, usage.ru_utime + usage.ru_stime))
                self.selector.unregister(child["status"])
            child["status"].close()
            try:  # the rest of its process group, if any (the group keeps the number from reuse)
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self._clean_up(child["uid"], child["workdir"])

    def _clean_up(self, uid: int | None, workdir: str | None) -> None:
        if uid is not None:
            _kill_all_of(uid)
            self.uids.release(uid)
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)

    # ------------------------------------------------------------------ loop

    def serve(self) -> None:
        wakeup_r, wakeup_w = os.pipe()
        os.set_blocking(wakeup_w, False)
        os.set_blocking(wakeup_r, False)
        signal.set_wakeup_fd(wakeup_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.control, selectors.EVENT_READ, "control")
        self.selector.register(wakeup_r, selectors.EVENT_READ, "wakeup")
        try:
            while True:
                for key, _ in self.selector.select(timeout=1.0):
                    if key.data == "wakeup":
                        _drain(wakeup_r)
                    elif key.data == "control":
                        if not self._on_control():
                            return
                    else:
                        self._on_status(key.data)
                self.reap()
        finally:
            self._shut_down()

    def _on_control(self) -> bool:
        try:
            data, fds, _, _ = socket.recv_fds(self.control, 1 << 16, 5)
        except OSError:
            return False
        if not data:
            return False  # the parent is gone
        try:
            message = messages.receive(data, messages.Spawn)
        except messages.Malformed:
            message = None
        if message is not None and len(fds) == 5:
            self.spawn(message, fds)  # the one kind the control socket carries
            return True
        for fd in fds:
            os.close(fd)
        return True

    def _on_status(self, pid: int) -> None:
        child = self.children.get(pid)
        if child is None:
            return
        try:
            data = child["status"].recv(1 << 10)
        except OSError:
            data = b""
        try:
            messages.receive(data, messages.Kill)  # the one kind a status socket carries
        except messages.Malformed:
            pass  # closed, or not a message: the child is killed all the same
        if not data:  # the parent let go of this child: nobody is left to hear its exit
            self.selector.unregister(child["status"])
            child["listening"] = False
        _kill(pid)  # not reaped yet, so the number is still this child's

    def _shut_down(self) -> None:
        for pid in list(self.children):
            _kill(pid)
        deadline = time.monotonic() + 5
        while self.children and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.01)
        try:
            os.rmdir(self.root_dir)
        except OSError:
            pass


def _serve_one(plan: Plan, role: str, ahead: bool = False) -> None:
    """The child's whole life after the fork: harden, (warm up), read the request, answer, exit.
    ``ahead``: forked before its request exists (``ZygoteRunner``): a submission's child warms up
    too, on the judge's own sample, while it has the time."""
    from ..data import protocol
    from ..in_child import child, verify
    from . import probe

    # A child lives for a second: collecting young objects less often saves ~5% of its CPU, and
    # its memory stays bounded by its rlimit.
    gc.set_threshold(20_000, 50, 100)
    harden(plan)
    if role == "verify":
        verify.warm_up()  # the judge's own code and data: runs before any request exists
    elif ahead:
        probe.warm_up_tracing()  # the same: the judge's sample traced and exported
    os.write(HARDENED_FD, b"H")  # from here on, anything this process says may be the submission's
    os.close(HARDENED_FD)
    try:
        request = protocol.read_message(0, child.REQUEST_CAP)
    except protocol.ProtocolError:
        os._exit(0)  # discarded unused: the parent closed the request pipe
    os.close(0)
    response = child.serve(request)
    sys.stdout.flush()
    sys.stderr.flush()
    protocol.write_message(RESULT_FD, response)
    # Closed before exiting: the parent reads the end of every pipe now, not once this process's
    # memory is torn down (the kernel closes descriptors after unmapping it), and goes on.
    for fd in (RESULT_FD, 1, 2):
        os.close(fd)
    os._exit(0)


def _sandbox_error(detail: str) -> None:
    from ..data import protocol
    from ..data.messages import SandboxFailed

    try:
        protocol.write_message(RESULT_FD, SandboxFailed(detail).to_wire())
    except OSError:
        pass


def _arrange(fds: dict) -> None:
    """Put each source descriptor at its target number, then close every other one above them
    (the ``descriptors`` layer closes the rest again, and checks)."""
    high = {target: os.dup(source) for target, source in fds.items()}
    for target, fd in high.items():
        os.dup2(fd, target)
    for fd in set(high.values()):
        os.close(fd)
    os.closerange(max(fds) + 1, 1 << 16)


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _kill_all_of(uid: int) -> None:
    """Kill every process running as ``uid`` (a helper that becomes ``uid`` sends kill(-1),
    which reaches exactly the processes that uid may signal: its own), so nothing a child
    started outlives it."""
    helper = os.fork()
    if helper == 0:
        try:
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(helper, 0)


def _import_quietly(name: str) -> None:
    import importlib

    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a module the child can still import itself
        pass


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


def _read_report(fd: int, timeout_s: float) -> dict:
    from ..data import protocol

    deadline = time.monotonic() + timeout_s
    data = bytearray()
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if sel.select(timeout=deadline - time.monotonic()):
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                data += chunk
    if not data:
        raise RuntimeError("the probe child sent nothing")
    return protocol.parse_buffer(bytes(data), 64 << 20)
