"""The kernel's pieces the sandbox is made of: the list of layers (``layers``), the limits every
child sets (``rlimits``), the seccomp filter, the filesystem a child sees, user ids and Linux
calls. The processes that apply them (hardening, the probe, the zygote server) are in
``judge.processes``.
"""
