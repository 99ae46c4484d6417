"""``python -m judge bench --explorer``: how long the policy explorer takes on the two functions
that have targets (``WORKLOADS``), medians of rounds through the warm sandbox (its start and first
compilation before any timing). Speed is a benchmark's business, never a test's: the tests run
the same functions for what they find, not for how fast."""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass

MLP = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def mlp(w1, w2, x):
    hidden = checkpoint_name(jnp.tanh(x @ w1), "hidden")
    return jnp.sum(jnp.tanh(hidden @ w2) ** 2)
"""
MLP_SHAPES = ["f32[128,256]", "f32[256,128]", "f32[64,128]"]

TRANSFORMER = """import math

import jax
import jax.numpy as jnp


def block(h, layer):
    wq, wk, wv, wo, w1, w2 = layer
    q, k, v = h @ wq, h @ wk, h @ wv
    h = h + (jax.nn.softmax(q @ k.T / math.sqrt(h.shape[-1]), axis=-1) @ v) @ wo
    return h + jax.nn.gelu(h @ w1) @ w2, None


def transformer(wq, wk, wv, wo, w1, w2, x):
    h, _ = jax.lax.scan(block, x, (wq, wk, wv, wo, w1, w2))
    return jnp.mean(h ** 2)
"""


def transformer_shapes(blocks: int, width: int, wide: int, tokens: int) -> list[str]:
    """A scan over ``blocks`` stacked attention + MLP blocks of ``width`` (``wide`` inside the MLP)."""
    return [f"f32[{blocks},{width},{width}]"] * 4 + [
        f"f32[{blocks},{width},{wide}]",
        f"f32[{blocks},{wide},{width}]",
        f"f32[{tokens},{width}]",
    ]


@dataclass
class Workload:
    name: str
    source: str
    entry: str
    shapes: list[str]
    target_s: float


WORKLOADS = [
    Workload("every plan of a 2-layer MLP", MLP, "mlp", MLP_SHAPES, 3.0),
    Workload(
        "every plan of a 12-block transformer step (width 128, 2.4 Mi elements)",
        TRANSFORMER,
        "transformer",
        transformer_shapes(12, 128, 512, 128),
        20.0,
    ),
]


@dataclass
class Timing:
    workload: str
    plans: int
    median_s: float
    rounds: list[float]
    target_s: float
    load_average: tuple

    @property
    def met(self) -> bool:
        return self.median_s < self.target_s


def measure(runner, rounds: int = 3) -> list[Timing]:
    from .explorer.explore import explore

    timings = []
    for work in WORKLOADS:
        explore(work.source, work.entry, work.shapes, runner)  # warm: not the explorer's time
        before, times = os.getloadavg()[0], []
        for _ in range(rounds):
            started = time.perf_counter()
            found = explore(work.source, work.entry, work.shapes, runner)
            times.append(time.perf_counter() - started)
        timings.append(
            Timing(
                work.name,
                len(found.rows),
                statistics.median(times),
                times,
                work.target_s,
                (before, os.getloadavg()[0]),
            )
        )
    return timings
