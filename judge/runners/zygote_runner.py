"""``ZygoteRunner``: the default runner, whose children are forked by a warm zygote.

The zygote process (``judge.processes.zygote_server``) imports JAX once; each child it forks is hardened
with every sandbox layer this machine supports before it reads its request. This side creates
the child's pipes, hands them to the zygote with the spawn request, and then talks to the child
directly: it writes the request, reads the capped output and result (``boundary.pump``), and at the
wall-clock limit has the zygote kill the child's process group. ``shared_runner()`` is the one
runner of a process (the CLI, the tests, a Celery worker), started on first use and restarted
whenever its zygote has died.

Children forked ahead: each time a child of a role is handed out, the zygote is asked for the next
one of that role and limits, which hardens itself and warms up on the judge's own sample while
the grading in progress runs (on the other core), and then waits for a request. The next
grading starts on a warm child instead of forking one and paying its first trace, export and
compile: on ``checkpoint_dot_policy`` that is most of the difference between a child's first
request and its second. Such a child has seen nothing but the judge's own code; it still serves
one request only.
"""

from __future__ import annotations

import atexit
import os
import select
import socket
import subprocess
import sys
import threading
import time

from ..data import protocol
from ..data import zygote_messages as control
from ..data.paths import PROJECT_ROOT
from ..data.verdicts import ChildOutcome
from ..packages.limits import Limits
from ..sandbox import layers
from .boundary import RESULT_CAP, ChildResult, Runner, child_environment, interpret, kill_group, pump, remat3_chosen

START_TIMEOUT_S = 300
REPLY_TIMEOUT_S = 30
EXIT_GRACE_S = 10
ALWAYS_ACTIVE = {layers.ZYGOTE: "active", layers.GATE: "active", layers.WALL_CLOCK: "active", layers.VERIFY: "active"}


class ZygoteUnavailable(RuntimeError):
    """The zygote would not start or stopped answering (a failure of the judge, never the learner's)."""


class ZygoteRunner(Runner):
    name = "warm zygote"

    def __init__(self, remat3: str | None = None, *, ahead: bool = False):
        """``remat3``: ``JAX_REMAT3`` for this runner's children ("true": JAX 0.10.2's remat3);
        None: the grader's own environment decides. ``ahead``: keep one child per role forked
        ahead of its request (see the module's text)."""
        self.remat3 = remat3 if remat3 is not None else remat3_chosen()
        self.ahead = ahead
        self._lock = threading.Lock()
        self._ahead_lock = threading.Lock()
        self._asked_ahead: dict[str, _Asked] = {}  # per role: the next child, asked for already
        self._proc: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self._layers: dict = {}
        self.pid: int | None = None

    # ------------------------------------------------------------------ the zygote process

    def _ensure(self) -> None:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()

    def _start(self) -> None:
        self._stop()
        parent_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-c",
                "import sys; sys.path.insert(0, sys.argv[1]); "
                "from judge.processes.zygote_server import main; main(int(sys.argv[2]))",
                str(PROJECT_ROOT),
                str(zygote_end.fileno()),
            ],
            pass_fds=(zygote_end.fileno(),),
            env=child_environment(self.remat3),
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        zygote_end.close()
        parent_end.settimeout(START_TIMEOUT_S)
        try:
            data = parent_end.recv(1 << 20)
        except OSError:
            data = b""
        try:
            message = control.receive(data, control.Ready, control.Unavailable)
        except control.Malformed as exc:
            message = control.Unavailable(f"the zygote exited or timed out while starting ({exc})")
        if isinstance(message, control.Unavailable):
            proc.kill()
            proc.wait()
            parent_end.close()
            raise ZygoteUnavailable(message.error)
        parent_end.settimeout(None)
        found = {name: state.to_wire() for name, state in message.layers.items()}
        self._proc, self._control, self._layers, self.pid = proc, parent_end, found, message.pid

    def _stop(self) -> None:
        self._abandon_ahead()
        if self._control is not None:
            self._control.close()  # the zygote kills its children and exits on end of file
            self._control = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=EXIT_GRACE_S)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None

    def close(self) -> None:
        with self._lock:
            self._stop()

    # ------------------------------------------------------------------ layers

    def layers(self) -> dict:
        """Every layer, in order, with whether it is active here and why not."""
        self._ensure()
        found = {}
        for name in layers.ALL_LAYERS:
            if name in ALWAYS_ACTIVE:
                found[name] = {"ok": True, "detail": ALWAYS_ACTIVE[name]}
            else:
                found[name] = self._layers[name]
        return found

    def missing_layers(self) -> dict:
        return {name: state["detail"] for name, state in self.layers().items() if not state["ok"]}

    # ------------------------------------------------------------------ children

    def prepare(self, limits: Limits, role: str = "run") -> "_ZygoteChild":
        """A hardened child that waits for its request: the one forked ahead for this role and
        limits if there is one, else one forked now (a "verify" child warms up first); then the
        next one is asked for ahead."""
        child = self._take_ahead(limits, role)
        if child is None:
            child = self._fork_now(limits, role)
        if self.ahead:
            self._ask_ahead(limits, role)
        return child

    def ready_pids(self) -> list[int]:
        """The children forked ahead and waiting for a request (never handed one yet)."""
        pids = []
        with self._ahead_lock:  # a child being taken is out of the table already
            for asked in self._asked_ahead.values():
                try:
                    pids.append(asked.answer().pid)
                except ZygoteUnavailable:
                    pass
        return pids

    def _fork_now(self, limits: Limits, role: str) -> "_ZygoteChild":
        for attempt in range(2):
            self._ensure()
            try:
                return self._ask(limits, role, ahead=False).answer()
            except ZygoteUnavailable:
                if attempt:
                    raise
                with self._lock:  # it died between the check and the spawn: start it again
                    self._stop()
        raise AssertionError("unreachable")

    def _take_ahead(self, limits: Limits, role: str) -> "_ZygoteChild | None":
        with self._ahead_lock:
            asked = self._asked_ahead.pop(role, None)
        if asked is None:
            return None
        if asked.limits != limits:  # forked for another problem's limits
            asked.abandon()
            return None
        try:
            child = asked.answer()
        except ZygoteUnavailable:
            return None
        if child.ended():  # it died while waiting (its zygote with it, maybe): not used
            child.discard()
            return None
        return child

    def _ask_ahead(self, limits: Limits, role: str) -> None:
        """Ask the zygote for the next child of this role; its answer is read when it is taken."""
        try:
            asked = self._ask(limits, role, ahead=True)
        except ZygoteUnavailable:
            return  # the next request forks its child then
        with self._ahead_lock:
            previous = self._asked_ahead.get(role)
            self._asked_ahead[role] = asked
        if previous is not None:
            previous.abandon()

    def _abandon_ahead(self) -> None:
        with self._ahead_lock:
            asked, self._asked_ahead = list(self._asked_ahead.values()), {}
        for a in asked:
            a.abandon()

    def _ask(self, limits: Limits, role: str, ahead: bool) -> "_Asked":
        """Send the zygote a spawn request with the child's descriptors; its answer is read later."""
        stdin_r, stdin_w = os.pipe()
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        hardened_r, hardened_w = os.pipe()
        status, status_for_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        message = control.encode(control.Spawn(limits, role, ahead))
        asked = _Asked(limits, stdin_w, out_r, result_r, hardened_r, status)
        try:
            with self._lock:
                control_socket = self._control
                if control_socket is None:
                    raise ZygoteUnavailable("the zygote is not running")
                socket.send_fds(
                    control_socket, [message], [stdin_r, out_w, result_w, hardened_w, status_for_child.fileno()]
                )
        except (OSError, ZygoteUnavailable) as exc:
            asked.abandon()
            raise ZygoteUnavailable(f"the zygote did not take the child: {exc}") from None
        finally:
            for fd in (stdin_r, out_w, result_w, hardened_w):
                os.close(fd)
            status_for_child.close()
        return asked


class _Asked:
    """A child the zygote was asked for: this side's ends of its descriptors, and the zygote's
    answer once read (``answer``)."""

    def __init__(self, limits: Limits, stdin_w: int, out_r: int, result_r: int, hardened_r: int, status: socket.socket):
        self.limits = limits
        self.fds = (stdin_w, out_r, result_r, hardened_r)
        self.status = status
        self.child: _ZygoteChild | None = None

    def answer(self) -> "_ZygoteChild":
        if self.child is not None:
            return self.child
        try:
            self.status.settimeout(REPLY_TIMEOUT_S)
            data = self.status.recv(1 << 10)
        except OSError as exc:
            self.abandon()
            raise ZygoteUnavailable(f"the zygote did not take the child: {exc}") from None
        try:
            reply = control.receive(data, control.Spawned, control.Unavailable)
        except control.Malformed as exc:  # end of file: the zygote is gone
            reply = control.Unavailable(f"no child: {exc}")
        if isinstance(reply, control.Unavailable):
            self.abandon()
            raise ZygoteUnavailable(reply.error)
        self.child = _ZygoteChild(reply.pid, reply.uid, *self.fds, self.status)
        return self.child

    def abandon(self) -> None:
        """Not wanted after all: closing its status socket has the zygote kill it."""
        if self.child is not None:
            self.child.discard()
            return
        for fd in self.fds:
            os.close(fd)
        self.status.close()


class _ZygoteChild:
    """One forked, hardened child; this side owns its pipes and its status socket."""

    def __init__(
        self, pid: int, uid: int | None, stdin_w: int, out_r: int, result_r: int, hardened_r: int, status: socket.socket
    ):
        self.pid, self.uid = pid, uid  # uid: the child's own, None without the uid layer
        self.stdin_w, self.out_r, self.result_r, self.hardened_r = stdin_w, out_r, result_r, hardened_r
        self.status = status
        self.closed = False

    def run(self, request: dict, limits: Limits) -> ChildResult:
        started = time.monotonic()
        deadline = started + limits.wall_s
        raw, reason = pump(
            {"stdout": self.out_r, "result": self.result_r, "hardened": self.hardened_r},
            deadline,
            {"stdout": limits.output_kb * 1024, "result": RESULT_CAP, "hardened": 1},
            send=(self.stdin_w, protocol.encode(request, share=True)),
        )
        self.stdin_w = None  # pump closed it
        if not reason and protocol.is_whole_message(raw["result"]):
            # A whole response decides the outcome alone (``interpret`` reads the exit status only
            # when there is none): the child is killed now rather than awaited while it exits.
            self._close()
            return interpret(raw, None, 0, limits, time.monotonic() - started, 0.0, bytes(raw["hardened"]) == b"H")
        if reason:  # killed: its exit status follows as soon as the zygote has reaped it
            self.kill()
            exit_info = self._wait(EXIT_GRACE_S)
        else:  # its pipes are closed: it is exiting, or still running until its deadline
            exit_info = self._wait(max(deadline - time.monotonic(), 0) + 1)
        if exit_info is None and not reason:  # still running with its pipes closed: past its time now
            self.kill()
            reason = "time"
            exit_info = self._wait(EXIT_GRACE_S)
        self._close()
        wall_s = time.monotonic() - started
        if exit_info is None:
            kill_group(self.pid)
            return ChildResult(
                ChildOutcome.SANDBOX_ERROR, wall_s=wall_s, detail="the zygote stopped answering while the child ran"
            )
        return interpret(
            raw, reason, exit_info.exit, limits, wall_s, exit_info.cpu_s, hardened=bytes(raw["hardened"]) == b"H"
        )

    def ended(self) -> bool:
        """Whether the zygote has said anything on its status socket (its exit) or closed it:
        a child waiting for its request says nothing there."""
        try:
            return bool(select.select([self.status], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def _wait(self, timeout_s: float) -> control.Exited | None:
        self.status.settimeout(max(timeout_s, 0.05))
        try:
            return control.receive(self.status.recv(1 << 10), control.Exited)
        except (OSError, control.Malformed):
            return None

    def kill(self) -> None:
        try:
            self.status.send(control.encode(control.Kill()))
        except OSError:
            kill_group(self.pid)

    def discard(self) -> None:
        """The child is not needed after all (its submission failed first): kill it."""
        if not self.closed:
            self.kill()
            self._close()

    def _close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for fd in (self.stdin_w, self.out_r, self.result_r, self.hardened_r):
            if fd is not None:
                os.close(fd)
        self.status.close()


_SHARED: ZygoteRunner | None = None
_SHARED_LOCK = threading.Lock()


# Set to 1 to keep children forked ahead of each grading. Off by default: on a quiet 2-core
# machine it took a warm grading's p50 from 0.247 to 0.240 s, for 17 % fewer verdicts a minute
# (265 against 319 with 2 graders): a child forked ahead spends its warm-up (about 0.1 s of CPU
# each) whether or not a grading follows. Worth it where cores are idle and latency counts.
CHILDREN_AHEAD = "JUDGE_CHILDREN_AHEAD"


def shared_runner() -> ZygoteRunner:
    """The process-wide runner; its zygote starts on first use and again if it died."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = ZygoteRunner(ahead=os.environ.get(CHILDREN_AHEAD, "0") == "1")
            atexit.register(_SHARED.close)
        return _SHARED
