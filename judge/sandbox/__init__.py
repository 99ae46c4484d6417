"""The sandbox around submitted code: the zygote, the layers each child applies, and the probe.

See ``layers`` for the list, ``harden`` for how a child applies them, ``zygote`` for the process
that forks the children and ``probe`` for how the zygote learns which layers hold here.
"""
