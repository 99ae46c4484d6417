"""What a child may use of the machine, as a problem's ``[limits]`` table sets it (the defaults
otherwise): the sandbox applies these, and the boundary reads a child's exit against them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    wall_s: float = 30.0
    cpu_s: int = 30
    memory_mb: int = 4096
    output_kb: int = 64
