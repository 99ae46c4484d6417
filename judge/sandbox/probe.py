"""What the zygote checks once, in a child of its own, before it serves: which layers hold.

The probe child applies every layer it can (``harden(strict=False)``), then checks each one by
its effect, not by its own word: the session it is in, the descriptors left open, the
environment, the namespaces it left, what the filesystem shows, its rlimits, uid and
no_new_privs flag, and that the kernel refuses a socket and a fork. Then it runs a tiny grading
end to end (trace, export, verify) inside all of that, which proves the sandbox leaves the judge
working and tells the zygote which modules that path imports lazily, so that it can import them
before forking. No submitted code ever runs in the probe: its report is trusted.
"""
from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

import numpy as np

from . import filesystem, layers, linux, seccomp
from .harden import KEPT_FDS, Plan
from .rlimits import MAX_OPEN_FILES

SAMPLE_SOURCE = """
import jax
import jax.numpy as jnp


def sample(w, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(lambda w, x: jnp.sum(jnp.sin(x @ w) ** 2), policy=policy)(w, x)
"""


def examine(plan: Plan, evidence: dict, missing: dict, project_root: Path) -> dict:
    status = {}
    for name in layers.CHILD_LAYERS:
        if name in missing:
            status[name] = {"ok": False, "detail": missing[name]}
            continue
        try:
            problem = _CHECKS[name](plan, evidence, project_root)
        except Exception as exc:  # noqa: BLE001
            problem = f"check failed: {type(exc).__name__}: {exc}"
        status[name] = {"ok": problem is None, "detail": problem or "active"}
    before = set(sys.modules)
    sample = run_sample()
    return {"layers": status, "sample": sample, "modules": sorted(set(sys.modules) - before)}


def run_sample() -> str | None:
    """Grade a tiny function end to end in this process; None when it worked, else why not."""
    from .. import child, verify

    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((3, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    request = {"source": SAMPLE_SOURCE, "filename": "submission.py", "entry": "sample", "arg_names": ["w", "x"],
               "wrt": [0, 1], "inspect": True, "fwd_bwd": False, "export": True,
               "cases": [{"name": "sample", "seed": 0, "static_mask": [False, False], "args": [w, x]}]}
    try:
        traced = child.serve(request)
        if traced.get("status") != "ok" or "error" in traced["cases"][0]:
            return f"tracing failed: {traced}"
        cotangent = [np.ones((), np.float32)]
        checked = verify.serve(verify.build_request(traced["programs"], [0, 1], [
            {"name": "sample", "inputs": [w, x], "cotangent": cotangent, "hidden_inputs": [w, x],
             "hidden_cotangent": cotangent}]))
        if checked.get("status") != "ok" or not checked.get("checked"):
            return f"verification failed: {checked}"
        expected = np.sum(np.sin(x @ w) ** 2)
        if not np.allclose(checked["cases"][0]["value"][0], expected, rtol=1e-5):
            return "verification computed a wrong value"
        return None
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"


def _session(plan, evidence, root):
    if not os.getsid(0) == os.getpgid(0) == os.getpid():
        return "the child shares a session or process group"


def _descriptors(plan, evidence, root):
    open_fds = []
    for fd in range(MAX_OPEN_FILES):
        try:
            os.fstat(fd)
            open_fds.append(fd)
        except OSError:
            pass
    if tuple(open_fds) != KEPT_FDS:
        return f"descriptors open: {open_fds}"


def _environment(plan, evidence, root):
    extra = set(os.environ) - set(plan.environment) - {"TMPDIR", "HOME"}
    if extra:
        return f"unexpected variables: {sorted(extra)}"


def _namespaces(plan, evidence, root):
    changed = evidence.get("namespaces_changed", [])
    if changed != ["ipc", "mnt", "net"]:
        return f"only these namespaces are new: {changed}"


def _filesystem(plan, evidence, root):
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


def _workdir(plan, evidence, root):
    here = os.getcwd()
    if os.listdir(here):
        return f"the working directory {here} is not empty"
    with open("probe", "w") as f:
        f.write("x")
    os.remove("probe")


def _rlimits(plan, evidence, root):
    memory = plan.limits.memory_mb << 20
    wanted = {resource.RLIMIT_AS: memory, resource.RLIMIT_CPU: plan.limits.cpu_s, resource.RLIMIT_CORE: 0,
              resource.RLIMIT_NOFILE: MAX_OPEN_FILES}
    if plan.uid is not None and layers.UID in plan.layers:
        wanted[resource.RLIMIT_NPROC] = None  # any finite limit
    for limit, value in wanted.items():
        soft, _ = resource.getrlimit(limit)
        if soft == resource.RLIM_INFINITY or (value is not None and soft != value):
            return f"rlimit {limit} is {soft}"
    if os.environ.get("MALLOC_ARENA_MAX") != "2":
        return "MALLOC_ARENA_MAX is not 2"


def _uid(plan, evidence, root):
    if os.getresuid() != (plan.uid,) * 3 or os.getresgid() != (plan.uid,) * 3 or os.getgroups():
        return f"uid {os.getresuid()}, gid {os.getresgid()}, groups {os.getgroups()}"


def _no_new_privs(plan, evidence, root):
    if linux.prctl(linux.PR_GET_NO_NEW_PRIVS) != 1:
        return "the flag is not set"


def _seccomp(plan, evidence, root):
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


_CHECKS = {
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
