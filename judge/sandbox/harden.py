"""Hardening a freshly forked child, layer by layer, before it reads its request.

The child is single-threaded here (forked from the single-threaded zygote), so every per-thread
property (namespaces, the seccomp filter, credentials) is inherited by the threads XLA starts
later. The order matters: namespaces and mounts need root, so they come before the uid drop;
the seccomp filter refuses mount and unshare, so it comes last.

``harden(plan)`` applies the layers the plan names and raises ``SandboxError`` at the first that
fails (the child then exits without running anything: fail closed). ``harden(plan, strict=False)``
is the probe's variant: it tries every layer and returns why each missing one failed.
"""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field

from ..package import Limits
from . import filesystem, layers, linux, seccomp
from .rlimits import MAX_OPEN_FILES, MAX_THREADS, apply_rlimits

RESULT_FD = 3
HARDENED_FD = 4  # one byte once every layer is in place, then closed before the request is read
KEPT_FDS = (0, 1, 2, RESULT_FD, HARDENED_FD)  # request in, printed output (stdout, stderr), result out
NAMESPACE_FILES = ("net", "mnt", "ipc")


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
            _APPLY[name](plan, evidence)
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


def _session(plan: Plan, evidence: dict) -> None:
    if os.getsid(0) != os.getpid():
        os.setsid()


def _descriptors(plan: Plan, evidence: dict) -> None:
    os.closerange(max(KEPT_FDS) + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _environment(plan: Plan, evidence: dict) -> None:
    os.environ.clear()
    os.environ.update(plan.environment)


def _namespaces(plan: Plan, evidence: dict) -> None:
    before = {name: os.stat(f"/proc/self/ns/{name}").st_ino for name in NAMESPACE_FILES}
    linux.unshare(linux.CLONE_NEWNET | linux.CLONE_NEWNS | linux.CLONE_NEWIPC)
    after = {name: os.stat(f"/proc/self/ns/{name}").st_ino for name in NAMESPACE_FILES}
    evidence["namespaces_changed"] = sorted(n for n in NAMESPACE_FILES if before[n] != after[n])


def _filesystem(plan: Plan, evidence: dict) -> None:
    if "mnt" not in evidence.get("namespaces_changed", ()):
        raise OSError("needs a mount namespace of its own")  # never mount in the host's
    if not plan.root_dir:
        raise OSError("no mount point for the minimal root")
    owner = plan.uid if plan.uid is not None and layers.UID in plan.layers else os.getuid()
    filesystem.enter_minimal_root(plan.root_dir, plan.exposed, owner)
    os.environ["TMPDIR"] = os.environ["HOME"] = filesystem.WORKDIR


def _workdir(plan: Plan, evidence: dict) -> None:
    if not plan.workdir:
        raise OSError("no private working directory")
    os.chdir(plan.workdir)
    os.environ["TMPDIR"] = os.environ["HOME"] = plan.workdir


def _rlimits(plan: Plan, evidence: dict) -> None:
    apply_rlimits(plan.limits)
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))
    if layers.UID in plan.layers and plan.uid is not None:
        # RLIMIT_NPROC counts the processes of the real uid, so it only means something for a
        # uid of the child's own (and it does not bind root at all).
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_THREADS, MAX_THREADS))


def _uid(plan: Plan, evidence: dict) -> None:
    if plan.uid is None:
        raise OSError("the judge does not run as root, so it cannot switch to another uid")
    os.setgroups([])
    os.setresgid(plan.uid, plan.uid, plan.uid)
    os.setresuid(plan.uid, plan.uid, plan.uid)


def _no_new_privs(plan: Plan, evidence: dict) -> None:
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)


def _seccomp(plan: Plan, evidence: dict) -> None:
    seccomp.install()


_APPLY = {
    layers.SESSION: _session,
    layers.DESCRIPTORS: _descriptors,
    layers.ENVIRONMENT: _environment,
    layers.NAMESPACES: _namespaces,
    layers.FILESYSTEM: _filesystem,
    layers.WORKDIR: _workdir,
    layers.RLIMITS: _rlimits,
    layers.UID: _uid,
    layers.NO_NEW_PRIVS: _no_new_privs,
    layers.SECCOMP: _seccomp,
}
