"""The seccomp filter of a sandboxed child: the system calls an attack needs, refused by the kernel.

Everything else is allowed (JAX and XLA use a wide, version-dependent set of calls; an allow-list
would break on the next upgrade). Refused with EPERM: creating or using sockets, running
programs, tracing or reading other processes, mounting and changing namespaces or the root,
creating processes (threads stay allowed: XLA needs them), signalling every process at once,
and the kernel interfaces that are common exploit paths (bpf, io_uring, userfaultfd, keys...).
``clone3`` answers ENOSYS so that glibc falls back to ``clone``, whose flags the filter can read.
"""

from __future__ import annotations

import errno

from . import linux

SOCKETS = ("socket", "socketpair", "connect", "bind", "listen", "accept", "accept4")
PROGRAMS = ("execve", "execveat")
OTHER_PROCESSES = ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "pidfd_open")
MOUNTS_AND_NAMESPACES = (
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
)
NEW_PROCESSES = ("fork", "vfork")
KERNEL_ATTACK_SURFACE = (
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "open_by_handle_at",
    "name_to_handle_at",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "syslog",
    "fanotify_init",
    "personality",
    "quotactl",
    "lookup_dcookie",
)
DENIED = SOCKETS + PROGRAMS + OTHER_PROCESSES + MOUNTS_AND_NAMESPACES + NEW_PROCESSES + KERNEL_ATTACK_SURFACE


def build():
    """The filter, not yet loaded (``load`` applies it to the calling thread and its future threads)."""
    import pyseccomp as sc

    deny = sc.ERRNO(errno.EPERM)
    f = sc.SyscallFilter(sc.ALLOW)
    for name in DENIED:
        try:
            f.add_rule(deny, name)
        except (OSError, ValueError) as exc:  # a call this libseccomp does not know cannot be made either
            if name in SOCKETS + PROGRAMS + MOUNTS_AND_NAMESPACES[:6] + ("ptrace",):
                raise OSError(f"seccomp: cannot filter {name}: {exc}") from exc
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    # clone(flags, ...): a new process is a clone without CLONE_THREAD; namespaces are flag bits.
    f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, linux.CLONE_THREAD, 0))
    for flag in linux.NAMESPACE_FLAGS:
        f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    # kill(-1, sig) reaches every process the caller may signal; the unprivileged uid narrows
    # that to the child itself, this refuses it even where that layer is missing.
    f.add_rule(deny, "kill", sc.Arg(0, sc.MASKED_EQ, 0xFFFFFFFF, 0xFFFFFFFF))
    return f


def install() -> None:
    """Load the filter into this (single-threaded) process; no_new_privs must already be set."""
    build().load()


def active() -> bool:
    return linux.prctl(linux.PR_GET_SECCOMP) == 2
