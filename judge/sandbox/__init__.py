"""The sandbox around submitted code: the zygote server, the layers each child applies, and the probe.

See ``layers`` for the list, ``harden`` for how a child applies each one and how the probe checks
it, ``rlimits`` for the limits every child sets, ``zygote_server`` for the process that forks the
children and ``probe`` for how it learns which layers hold here.
"""
