"""The child's view of the filesystem: the Python runtime, read-only, and one empty directory.

In a new mount namespace the child mounts a small tmpfs, binds into it, read-only, only what the
interpreter and the judge need (the system's /usr, the virtual environment, the ``judge``
package, a few devices), pivots into it and detaches the old root. The problem bank and its
references, settings, /etc, /home, /root, /tmp and everything else are then not hidden but
absent: there is no path that names them. The working directory is a size-limited tmpfs owned
by the child's uid, the only writable place.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import linux

ROOT_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")  # /lib -> usr/lib on merged-/usr systems
# XLA's CPU feature detection (the cpuinfo library) reads the CPU topology from these; without
# them it prints an error into the learner's output and XLA compiles several times slower.
SYSTEM_INFO = ("/sys/devices/system/cpu",)
SYSTEM_FILES = ("/proc/cpuinfo",)
DEVICES = ("null", "zero", "random", "urandom")
WORKDIR = "/sandbox"
WORKDIR_SIZE = "16m"
READ_ONLY = linux.MS_BIND | linux.MS_REC | linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV


def exposed_paths(project_root: Path) -> list[str]:
    """Host directories the child sees (read-only): the interpreter's and the judge's own files.

    The project root itself is never exposed (it holds the problem bank and settings): only its
    ``judge`` package, and the Python directories inside it such as a virtual environment.
    """
    project_root = project_root.resolve()
    candidates = {
        Path("/usr"),
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.exec_prefix),
        project_root / "judge",
        *map(Path, SYSTEM_INFO),
    }
    candidates.update(Path(p) for p in sys.path if p and os.path.isabs(p))
    chosen: list[Path] = []
    for path in sorted(p.resolve() for p in candidates if p.exists()):
        if path.is_file():
            path = path.parent
        if path == Path("/") or project_root.is_relative_to(path):
            continue  # "/" or an ancestor of the project would expose the bank
        if project_root in path.parents and not _python_dir(path, project_root):
            continue
        if not any(path.is_relative_to(c) for c in chosen):
            chosen.append(path)
    return [str(p) for p in chosen]


def _python_dir(path: Path, project_root: Path) -> bool:
    """Inside the project, only the judge package and interpreter trees (a venv) may be shown."""
    if path.is_relative_to(project_root / "judge"):
        return True
    return any(path.is_relative_to(Path(p)) for p in (sys.prefix, sys.exec_prefix))


def enter_minimal_root(new_root: str, paths: list[str], owner: int) -> None:
    """Build the minimal root at ``new_root`` (an empty directory) and make it this process's root.

    Needs CAP_SYS_ADMIN in a private mount namespace (the caller unshared CLONE_NEWNS).
    """
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    linux.mount("tmpfs", new_root, "tmpfs", linux.MS_NOSUID, "size=1m,mode=0755")
    for name in ROOT_LINKS:
        host = f"/{name}"
        if os.path.islink(host):
            os.symlink(os.readlink(host), f"{new_root}/{name}")
        elif os.path.isdir(host):
            paths = paths + [host]
    for path in paths:
        _bind(path, new_root + path, directory=True)
    os.makedirs(f"{new_root}/dev")
    for device in DEVICES:
        if os.path.exists(f"/dev/{device}"):
            _bind(f"/dev/{device}", f"{new_root}/dev/{device}", directory=False)
    for path in SYSTEM_FILES:
        if os.path.exists(path):
            _bind(path, new_root + path, directory=False)
    os.makedirs(new_root + WORKDIR)
    linux.mount(
        "tmpfs",
        new_root + WORKDIR,
        "tmpfs",
        linux.MS_NOSUID | linux.MS_NODEV,
        f"size={WORKDIR_SIZE},mode=0700,uid={owner},gid={owner}",
    )
    os.makedirs(f"{new_root}/.old")
    linux.pivot_root(new_root, f"{new_root}/.old")
    os.chdir("/")
    linux.umount2("/.old", linux.MNT_DETACH)
    os.rmdir("/.old")
    linux.mount(None, "/", None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | linux.MS_NOSUID)
    os.chdir(WORKDIR)


def _bind(source: str, target: str, directory: bool) -> None:
    if directory:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "w").close()  # noqa: SIM115 - a mount point for a device node
    linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    flags = READ_ONLY if directory else (linux.MS_BIND | linux.MS_REMOUNT | linux.MS_NOSUID | linux.MS_NOEXEC)
    linux.mount(None, target, None, flags | _kept_flags(target))


def _kept_flags(path: str) -> int:
    """The restrictions the mount already had (nosuid, nodev, noexec): a remount keeps them, as
    it must in a user namespace, where the kernel refuses to lift them (for root they change
    nothing: a read-only bind only adds)."""
    have = os.statvfs(path).f_flag
    return (
        (linux.MS_NOSUID if have & os.ST_NOSUID else 0)
        | (linux.MS_NODEV if have & os.ST_NODEV else 0)
        | (linux.MS_NOEXEC if have & os.ST_NOEXEC else 0)
    )
