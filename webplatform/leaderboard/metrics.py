"""What the per-problem rankings optimise, and how the figures read on the page.

Each accepted submission records five figures (columns of ``Submission``, copied from the judge's
report when it is accepted). A problem ranks by the metrics its package names, most important
first (``[ranking] metrics`` in ``problem.toml``, residual bytes then FLOPs unless it says
otherwise), as its current version recorded them.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.packages.package import DEFAULT_RANKING


@dataclass(frozen=True)
class Metric:
    field: str  # the column of Submission
    label: str
    unit: str  # "bytes", "flop" or "s"
    meaning: str  # one sentence for the page


RESIDUAL_BYTES = Metric(
    "residual_bytes",
    "Residual bytes",
    "bytes",
    "What the backward pass keeps from the forward pass (first case): the memory a checkpoint saves.",
)
FLOPS = Metric(
    "flops",
    "FLOPs",
    "flop",
    "Floating-point operations of one whole gradient step, measured by the judge on the program it "
    "compiled: every recomputation a checkpoint causes and every loop iteration counts.",
)
PEAK_BYTES = Metric(
    "peak_bytes",
    "Peak memory",
    "bytes",
    "The most bytes alive at once during one gradient step, measured by the judge on the program it "
    "compiled: the peak the verdict, Inspect and the memory budgets read.",
)
XLA_FLOPS = Metric(
    "xla_flops",
    "XLA FLOPs",
    "flop",
    "XLA's cost analysis of the compiled step: it counts a loop body once and may merge recomputation, "
    "so it is shown for reference and never ranks.",
)
XLA_PEAK_BYTES = Metric(
    "xla_peak_bytes",
    "XLA peak bytes",
    "bytes",
    "XLA's memory analysis of the compiled step (buffers it allocates), for reference.",
)
GRADING_TIME = Metric(
    "grading_time_s",
    "Grading time",
    "s",
    "Wall time of the whole grading (all cases, on a shared worker): noisy, never ranks.",
)

# XLA's own peak (``XLA_PEAK_BYTES``) is recorded and given by the API, never shown here: one program
# has one peak on every page, the judge's.
SHOWN = (RESIDUAL_BYTES, FLOPS, PEAK_BYTES, XLA_FLOPS, GRADING_TIME)
RECORDED = SHOWN + (XLA_PEAK_BYTES,)  # what the API gives of each entry, XLA's peak among them
BY_FIELD = {metric.field: metric for metric in RECORDED}


def ranking_for(problem) -> tuple[Metric, ...]:
    """The metrics ``problem`` ranks by, most important first (ties then go to the earlier submission)."""
    names = problem.current_version.ranking if problem.current_version_id else DEFAULT_RANKING
    return tuple(BY_FIELD[name] for name in names)


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
