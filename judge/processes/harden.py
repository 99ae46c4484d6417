"""Hardening a freshly forked child, layer by layer, before it reads its request.

The child is single-threaded here (forked from the single-threaded zygote), so every per-thread
property (namespaces, the seccomp filter, credentials) is inherited by the threads XLA starts
later. The order matters: namespaces and mounts need root, so they come before the uid drop;
the seccomp filter refuses mount and unshare, so it comes last.

``harden(plan)`` applies the layers the plan names and raises ``SandboxError`` at the first that
fails (the child then exits without running anything: fail closed). ``harden(plan, strict=False)``
is the probe's variant: it tries every layer and returns why each missing one failed.

Each layer is two functions side by side, in one table (``CHILD``): how a child applies it, and
how the probe (``probe.examine``) checks by its effect that it holds.
"""

from __future__ import annotations

import os
import resource
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..packages.limits import Limits
from ..sandbox import filesystem, layers, linux, seccomp
from ..sandbox.rlimits import MAX_OPEN_FILES, MAX_THREADS, apply_rlimits

RESULT_FD = 3
HARDENED_FD = 4  # one byte once every layer is in place, then closed before the request is read
KEPT_FDS = (0, 1, 2, RESULT_FD, HARDENED_FD)  # request in, printed output (stdout, stderr), result out
NAMESPACE_FILES = ("net", "mnt", "ipc")
SANDBOX_EXIT = 86  # how a child ends when its sandbox could not be set up (nothing of the submission ran)
# The uid an unprivileged judge's child has inside its own user namespace: not root there either
# (0 is not mapped at all), and its capabilities are dropped once its namespaces are set up.
INNER_ID = 1000


class SandboxError(RuntimeError):
    def __init__(self, layer: str, detail: str):
        self.layer, self.detail = layer, detail
        super().__init__(f"{layer}: {detail}")


@dataclass
class Plan:
    layers: tuple[str, ...]
    limits: Limits
    environment: dict
    uid: int | None = None
    root_dir: str | None = None  # an empty host directory: the mount point of the minimal root
    exposed: list[str] = field(default_factory=list)
    workdir: str | None = None  # a fresh private host directory, used without the filesystem layer


def harden(plan: Plan, strict: bool = True) -> tuple[dict, dict]:
    """Apply the plan's layers; returns (evidence for the probe, {missing layer: why})."""
    evidence: dict = {}
    missing: dict = {}
    _adjust_oom_score()
    for name in layers.CHILD_LAYERS:
        if name not in plan.layers:
            continue
        if name == layers.WORKDIR and layers.FILESYSTEM in plan.layers and layers.FILESYSTEM not in missing:
            continue  # the minimal root already made its working directory the current one
        try:
            CHILD[name].apply(plan, evidence)
        except Exception as exc:  # noqa: BLE001 - any failure means the layer is not there
            if strict:
                raise SandboxError(name, f"{type(exc).__name__}: {exc}") from None
            missing[name] = f"{type(exc).__name__}: {exc}"
    return evidence, missing


def _adjust_oom_score() -> None:
    """Under memory pressure the kernel should kill a child before the zygote or the grader."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


# ---------------------------------------------------------------------------- session


def _session(plan: Plan, evidence: dict) -> None:
    if os.getsid(0) != os.getpid():
        os.setsid()


def _session_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    if not os.getsid(0) == os.getpgid(0) == os.getpid():
        return "the child shares a session or process group"


# ---------------------------------------------------------------------------- descriptors


def _descriptors(plan: Plan, evidence: dict) -> None:
    os.closerange(max(KEPT_FDS) + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _descriptors_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    open_fds = []
    for fd in range(MAX_OPEN_FILES):
        try:
            os.fstat(fd)
            open_fds.append(fd)
        except OSError:
            pass
    if tuple(open_fds) != KEPT_FDS:
        return f"descriptors open: {open_fds}"


# ---------------------------------------------------------------------------- environment


def _environment(plan: Plan, evidence: dict) -> None:
    os.environ.clear()
    os.environ.update(plan.environment)


def _environment_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    extra = set(os.environ) - set(plan.environment) - {"TMPDIR", "HOME"}
    if extra:
        return f"unexpected variables: {sorted(extra)}"


# ---------------------------------------------------------------------------- namespaces


def _namespaces(plan: Plan, evidence: dict) -> None:
    before = {name: os.stat(f"/proc/self/ns/{name}").st_ino for name in NAMESPACE_FILES}
    flags = linux.CLONE_NEWNET | linux.CLONE_NEWNS | linux.CLONE_NEWIPC
    if os.geteuid() == 0:
        linux.unshare(flags)
    else:
        _own_user_namespace(flags, evidence)
        evidence["user_namespace"] = True
    after = {name: os.stat(f"/proc/self/ns/{name}").st_ino for name in NAMESPACE_FILES}
    evidence["namespaces_changed"] = sorted(n for n in NAMESPACE_FILES if before[n] != after[n])


def _own_user_namespace(flags: int, evidence: dict) -> None:
    """An unprivileged judge (a worker that does not run as root) gets the same namespaces inside
    a user namespace of the child's own, in which the child is root: its own uid and gid outside,
    mapped to 0 inside, and nothing else mapped. That is enough to mount its minimal root in its
    own mount namespace, and gives no power over anything outside its namespaces (files are
    still checked against its uid outside; the seccomp filter later refuses mount and unshare).
    It is uid ``INNER_ID`` there, not 0, and gives its capabilities up in the ``uid`` layer.

    Without root there is no uid of its own to switch to, and every child runs as the worker's
    uid outside: so each also gets a PID namespace of its own, where no other process has a
    number (a kill(-1) or a signal to the zygote reaches nothing), and its processes count
    against RLIMIT_NPROC on their own (per user namespace). This process stays outside it: it
    forks the child that goes on, waits for it and ends as it ended."""
    uid, gid = os.getuid(), os.getgid()
    linux.unshare(linux.CLONE_NEWUSER | linux.CLONE_NEWPID | flags)
    for name, text in (("setgroups", "deny"), ("uid_map", f"{INNER_ID} {uid} 1"), ("gid_map", f"{INNER_ID} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    inner = os.fork()
    if inner:
        _stand_in_for(inner)
    # The first process of its PID namespace, in a session and group of its own (a kill of its
    # group reaches nothing else), and killed with its stand-in, which the zygote kills.
    os.setsid()
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)


def _stand_in_for(pid: int) -> None:
    """The outer process of a child in its own PID namespace: holds nothing of the child's (its
    pipes are the inner one's), waits, and exits as the inner one did, so that the zygote's wait
    and its accounting (exit status, CPU time) read the same as for a child without one."""
    os.closerange(0, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            os._exit(SANDBOX_EXIT)
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else SANDBOX_EXIT)


def _namespaces_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    changed = evidence.get("namespaces_changed", [])
    if changed != ["ipc", "mnt", "net"]:
        return f"only these namespaces are new: {changed}"


# ---------------------------------------------------------------------------- filesystem


def _filesystem(plan: Plan, evidence: dict) -> None:
    if "mnt" not in evidence.get("namespaces_changed", ()):
        raise OSError("needs a mount namespace of its own")  # never mount in the host's
    if not plan.root_dir:
        raise OSError("no mount point for the minimal root")
    owner = plan.uid if plan.uid is not None and layers.UID in plan.layers else os.getuid()
    filesystem.enter_minimal_root(plan.root_dir, plan.exposed, owner)
    os.environ["TMPDIR"] = os.environ["HOME"] = filesystem.WORKDIR


def _filesystem_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    allowed = set(plan.exposed) | {"/dev", filesystem.WORKDIR} | set(filesystem.SYSTEM_FILES)
    unexpected = []

    def walk(directory: str) -> None:
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if path in allowed or (directory == "/" and os.path.islink(path)):
                continue
            if any(a.startswith(path + "/") for a in allowed):
                walk(path)  # only a directory on the way to something exposed
            else:
                unexpected.append(path)

    walk("/")
    if unexpected or (root / "problems").exists():
        return f"visible beyond the Python runtime: {unexpected[:5]}"
    try:
        with open("/probe-write", "w"):
            return "the root is writable"
    except OSError:
        return None


# ---------------------------------------------------------------------------- workdir


def _workdir(plan: Plan, evidence: dict) -> None:
    if not plan.workdir:
        raise OSError("no private working directory")
    os.chdir(plan.workdir)
    os.environ["TMPDIR"] = os.environ["HOME"] = plan.workdir


def _workdir_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    here = os.getcwd()
    if os.listdir(here):
        return f"the working directory {here} is not empty"
    with open("probe", "w") as f:
        f.write("x")
    os.remove("probe")


# ---------------------------------------------------------------------------- rlimits


def _own_processes(plan: Plan, evidence: dict) -> bool:
    """Whether this child's processes are counted on their own: a uid of its own, or (unprivileged)
    a user namespace of its own."""
    return (layers.UID in plan.layers and plan.uid is not None) or bool(evidence.get("user_namespace"))


def _rlimits(plan: Plan, evidence: dict) -> None:
    apply_rlimits(plan.limits)
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))
    if _own_processes(plan, evidence):
        # RLIMIT_NPROC counts the processes of the real uid (in its user namespace), so it only
        # means something for a uid of the child's own (and it does not bind root at all).
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_THREADS, MAX_THREADS))


def _rlimits_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    memory = plan.limits.memory_mb << 20
    wanted = {
        resource.RLIMIT_AS: memory,
        resource.RLIMIT_CPU: plan.limits.cpu_s,
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_NOFILE: MAX_OPEN_FILES,
    }
    if _own_processes(plan, evidence):
        wanted[resource.RLIMIT_NPROC] = None  # any finite limit
    for limit, value in wanted.items():
        soft, _ = resource.getrlimit(limit)
        if soft == resource.RLIM_INFINITY or (value is not None and soft != value):
            return f"rlimit {limit} is {soft}"
    if os.environ.get("MALLOC_ARENA_MAX") != "2":
        return "MALLOC_ARENA_MAX is not 2"


# ---------------------------------------------------------------------------- uid


def _uid(plan: Plan, evidence: dict) -> None:
    if plan.uid is None:
        if evidence.get("user_namespace"):
            # Unprivileged: a user and PID namespace of its own stand for the uid (see
            # _own_user_namespace); the capabilities it had there to mount its root go.
            linux.drop_capabilities()
            return
        raise OSError("the judge does not run as root, so it cannot switch to another uid")
    os.setgroups([])
    os.setresgid(plan.uid, plan.uid, plan.uid)
    os.setresuid(plan.uid, plan.uid, plan.uid)


def _uid_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    if plan.uid is None and evidence.get("user_namespace"):
        if os.getpid() != 1 or os.getppid() != 0:
            return f"not alone in a PID namespace of its own (pid {os.getpid()}, parent {os.getppid()})"
        if os.getresuid() != (INNER_ID,) * 3 or linux.capabilities() != 0:
            return f"uid {os.getresuid()} in its user namespace, capabilities {linux.capabilities():#x}"
        return None  # the first process of its own PID namespace: no other process has a number here
    if os.getresuid() != (plan.uid,) * 3 or os.getresgid() != (plan.uid,) * 3 or os.getgroups():
        return f"uid {os.getresuid()}, gid {os.getresgid()}, groups {os.getgroups()}"


# ---------------------------------------------------------------------------- no_new_privs


def _no_new_privs(plan: Plan, evidence: dict) -> None:
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)


def _no_new_privs_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    if linux.prctl(linux.PR_GET_NO_NEW_PRIVS) != 1:
        return "the flag is not set"


# ---------------------------------------------------------------------------- seccomp


def _seccomp(plan: Plan, evidence: dict) -> None:
    seccomp.install()


def _seccomp_holds(plan: Plan, evidence: dict, root: Path) -> str | None:
    import socket

    if not seccomp.active():
        return "no filter is loaded"
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
        return "a socket could be created"
    except PermissionError:
        pass
    try:
        pid = os.fork()
    except PermissionError:
        return None
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return "a process could be forked"


@dataclass(frozen=True)
class ChildLayer:
    apply: Callable[[Plan, dict], None]  # raises when the layer cannot be put in place
    holds: Callable[[Plan, dict, Path], str | None]  # checked by its effect: None, or what is wrong


# In the order a child applies them (``layers.CHILD_LAYERS``).
CHILD = {
    layers.SESSION: ChildLayer(_session, _session_holds),
    layers.DESCRIPTORS: ChildLayer(_descriptors, _descriptors_holds),
    layers.ENVIRONMENT: ChildLayer(_environment, _environment_holds),
    layers.NAMESPACES: ChildLayer(_namespaces, _namespaces_holds),
    layers.FILESYSTEM: ChildLayer(_filesystem, _filesystem_holds),
    layers.WORKDIR: ChildLayer(_workdir, _workdir_holds),
    layers.RLIMITS: ChildLayer(_rlimits, _rlimits_holds),
    layers.UID: ChildLayer(_uid, _uid_holds),
    layers.NO_NEW_PRIVS: ChildLayer(_no_new_privs, _no_new_privs_holds),
    layers.SECCOMP: ChildLayer(_seccomp, _seccomp_holds),
}
