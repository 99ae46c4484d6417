"""The package a new problem starts from: a shape to fill in, not a valid problem yet (no slug,
title or entry point), so the form's errors say what is left to write."""

from __future__ import annotations

from judge.packages.limits import Limits

from . import toml_writer

STATEMENT = """# Title

Why this matters, in a few sentences.

## Task

Write `f(x)` so that ... with $x \\in \\mathbb{R}^{N \\times d}$.
"""
CODE = """import jax
import jax.numpy as jnp


def f(x):
    raise NotImplementedError
"""


def _plain(number: float):
    """30.0 -> 30: what a person would write."""
    return int(number) if float(number).is_integer() else number


def blank_package(uuid: str) -> dict[str, str]:
    data = {
        "uuid": uuid,
        "difficulty": "medium",
        "device": "cpu",
        "args": [{"name": "x", "spec": "f32[N,d]"}],
        "gradients": {"wrt": ["x"]},
        "tolerance": {"rtol": 1e-5, "atol": 1e-6},
        "cases": [
            {"name": "sample-1", "sample": True, "seed": 1, "dims": {"N": 4, "d": 8}},
            {"name": "hidden-1", "seed": 2, "dims": {"N": 16, "d": 32}},
        ],
        "checks": {"residuals": {"match_reference": True}},
        "limits": {
            "wall_s": _plain(Limits.wall_s),
            "cpu_s": Limits.cpu_s,
            "memory_mb": Limits.memory_mb,
            "output_kb": Limits.output_kb,
        },
    }
    return {
        "problem.toml": toml_writer.dumps(data),
        "statement.md": STATEMENT,
        "starter.py": CODE,
        "reference.py": CODE,
    }
