"""What the per-problem rankings optimise, and how the figures read on the page.

Each accepted submission records five figures (columns of ``Submission``, copied from the judge's
report when it is accepted). A problem ranks by an ordered pair of them: residual bytes then FLOPs
unless ``RANKING_BY_PROBLEM`` says otherwise.

Why a mapping here and not a key in ``problem.toml``: ``judge/package.py`` refuses unknown keys
(and the judge is not ours to change), and a field on ``catalog.Problem`` set by a data migration
would miss every database whose bank is synced after migrating (tests, fresh installs). The
mapping is keyed by the problem's ``uuid``, which survives a rename of its slug.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    field: str  # the column of Submission
    label: str
    unit: str  # "bytes", "flop" or "s"
    meaning: str  # one sentence for the page


RESIDUAL_BYTES = Metric(
    "residual_bytes", "Residual bytes", "bytes",
    "What the backward pass keeps from the forward pass (first case): the memory a checkpoint saves.")
FLOPS = Metric(
    "flops", "FLOPs", "flop",
    "Floating-point operations of one whole gradient step, read from the traced program: every "
    "recomputation a checkpoint causes and every loop iteration counts.")
PEAK_BYTES = Metric(
    "peak_bytes", "Peak bytes", "bytes",
    "The largest total size of values alive at once during a gradient step, from the traced program.")
XLA_FLOPS = Metric(
    "xla_flops", "XLA FLOPs", "flop",
    "XLA's cost analysis of the compiled step: it counts a loop body once and may merge recomputation, "
    "so it is shown for reference and never ranks.")
XLA_PEAK_BYTES = Metric(
    "xla_peak_bytes", "XLA peak bytes", "bytes",
    "XLA's memory analysis of the compiled step (buffers it allocates), for reference.")
GRADING_TIME = Metric(
    "grading_time_s", "Grading time", "s",
    "Wall time of the whole grading (all cases, on a shared worker): noisy, never ranks.")

SHOWN = (RESIDUAL_BYTES, FLOPS, PEAK_BYTES, XLA_FLOPS, XLA_PEAK_BYTES, GRADING_TIME)
DEFAULT_RANKING = (RESIDUAL_BYTES, FLOPS)

RANKING_BY_PROBLEM: dict[uuid.UUID, tuple[Metric, ...]] = {
    # memory_budget_mlp: the task is a gradient step under a peak-memory budget, so the lowest
    # peak wins; residual bytes alone would ignore what the backward pass itself holds.
    uuid.UUID("4a6c8e0b-1d39-4f75-b2a6-9c3e5d7f0b18"): (PEAK_BYTES, FLOPS),
    # memory_budget_transformer: the same question on a transformer stack.
    uuid.UUID("94134220-e052-4b73-ba34-0d73f88959a7"): (PEAK_BYTES, FLOPS),
    # scan_of_scans: the task is a peak budget too (memory in the square root of the length).
    uuid.UUID("ee485ba3-f2f1-4404-84e3-0446e78c8782"): (PEAK_BYTES, FLOPS),
}


def ranking_for(problem) -> tuple[Metric, ...]:
    """The metrics ``problem`` ranks by, most important first (ties then go to the earlier submission)."""
    return RANKING_BY_PROBLEM.get(problem.uuid, DEFAULT_RANKING)


def humanize(value, unit: str) -> str:
    """3584 bytes -> "3.5 KiB", 1.2e9 flop -> "1.20 GFLOP"; exact values stay in the tables' titles."""
    if value is None:
        return "n/a"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "bytes":
        step, names = 1024.0, ("B", "KiB", "MiB", "GiB", "TiB")
    else:
        step, names = 1000.0, ("FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP")
    scaled, index = float(value), 0
    while abs(scaled) >= step and index < len(names) - 1:
        scaled /= step
        index += 1
    if index == 0:
        return f"{int(value)} {names[0]}"
    return f"{scaled:.3g} {names[index]}"
