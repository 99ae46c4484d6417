"""What an exploration found: a row per plan with its figures, the plans no other beats
(``mark_frontier``), the cheapest within a budget (``cheapest_within``), and the table the command
line prints (``render``). ``explore`` fills them; the site and the API read them back."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..data.shape_messages import EQUINOX, FUNCTION, NNX

HELD, PEAK = "held", "peak"
BUDGET_MEASURES = {
    HELD: "bytes kept on the device between the passes",
    PEAK: "the step's peak bytes",
}


LIBRARIES = {FUNCTION: "function", EQUINOX: "Equinox", NNX: "Flax NNX"}


@dataclass
class Row:
    plan: str
    kind: str
    names: list[str]
    code: str
    held_bytes: int  # residuals on the device, between the forward and the backward pass
    host_bytes: int  # residuals an offloading plan keeps in host memory
    residuals: int
    peak_bytes: int  # the gradient step's peak, inputs included
    held_peak_bytes: int  # saved and recomputed values the backward pass holds at once
    flops: float
    recomputed_flops: float  # above the function as written: the work done again
    dominated: bool = False
    # XLA's analysis of the step compiled alone: its peak (arguments, outputs and temporaries) and
    # its FLOPs (a loop's body counted once); None where it was not compiled (``COMPILE_S``)
    compiled_peak_bytes: int | None = None
    compiled_flops: float | None = None

    @classmethod
    def from_dict(cls, data: dict) -> Row | None:
        """A stored row read back; None for one this judge cannot read (written by another)."""
        try:
            return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})
        except TypeError:
            return None


@dataclass
class Exploration:
    function: str
    args: list[str]
    names: list[str]  # what the source labels with checkpoint_name
    rows: list[Row] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)  # plans that did not run: {"plan", "verdict", "message"}
    budget: int | None = None
    best: Row | None = None  # the cheapest plan within the budget
    budget_on: str = HELD  # what the budget is compared with: HELD or PEAK
    notes: list[str] = field(default_factory=list)  # what the explorer did otherwise than asked, and why
    # what the name stands for: FUNCTION, or a module of EQUINOX or NNX whose call was explored;
    # a module's parameters, as "path type" ("model.layers[0].weight f32[784,256]")
    library: str = FUNCTION
    parameters: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "library": self.library,
            "parameters": self.parameters,
            "notes": self.notes,
            "function": self.function,
            "args": self.args,
            "names": self.names,
            "budget": self.budget,
            "budget_on": self.budget_on,
            "rows": [asdict(r) for r in self.rows],
            "failed": self.failed,
            "best": self.best.plan if self.best is not None else None,
        }


def memory(row: Row, on: str = HELD) -> int:
    """The figure a budget is compared with: what a plan keeps on the device between the passes
    (``held``), or the most the whole step holds at once (``peak``): where checkpoints go in a
    chain of blocks shows in the peak, which counts what the backward pass rebuilds."""
    return row.peak_bytes if on == PEAK else row.held_bytes


def _costs(row: Row) -> tuple:
    # host memory counts too: an offloading plan frees the device at the price of the host's;
    # and the peak: checkpointing the whole function holds least between the passes, but rebuilds
    # everything at once, where a checkpoint per block rebuilds one block at a time
    return row.held_bytes, row.host_bytes, row.peak_bytes, row.flops


def mark_frontier(rows: list[Row]) -> None:
    """A row is dominated when another is no worse in held device memory, host memory, peak and
    FLOPs, and better in one of them."""
    for row in rows:
        mine = _costs(row)
        row.dominated = any(all(a <= b for a, b in zip(_costs(o), mine)) and _costs(o) != mine for o in rows)


def render(found: Exploration) -> str:
    """The exploration as the command line prints it."""
    from ..grading import text

    headers = ["", "plan", "held (device)", "held (host)", "peak", "FLOPs", "recomputed FLOPs"]
    rows = [
        [
            "*" if r is found.best else ("-" if r.dominated else ""),
            r.plan,
            r.held_bytes,
            r.host_bytes or "",
            r.peak_bytes,
            f"{r.flops:.4g}",
            f"{r.recomputed_flops:.4g}",
        ]
        for r in found.rows
    ]
    lines = [
        f"{found.function}({', '.join(found.args)}): {len(found.rows)} plans, measured on the verified program",
        *(
            [f"{LIBRARIES[found.library]} module: its parameters, differentiated: {', '.join(found.parameters)}"]
            if found.parameters
            else []
        ),
        text.table(headers, rows),
        "",
        "-: dominated (another plan holds no more on the device or the host, peaks no higher and computes no more)",
    ]
    for failure in found.failed:
        lines.append(f"{failure['plan']}: did not run: {failure['message']}")
    lines += found.notes
    if found.budget is not None:
        if found.best is None:
            lines.append(f"no plan fits {found.budget} bytes ({BUDGET_MEASURES[found.budget_on]})")
        else:
            lines += [
                f"*: the cheapest plan within {found.budget} bytes ({BUDGET_MEASURES[found.budget_on]}): {found.best.plan}",
                *(f"    {line}" if line else "" for line in found.best.code.splitlines()),
            ]
    return "\n".join(lines)


def cheapest_within(rows: list[Row], budget: int | None, on: str = HELD) -> Row | None:
    """The plan that fits the budget (``on``: the figure compared with it) with the least work;
    between equals, the one that moves least to the host (a transfer each way), then the one that
    holds least. None if none fits."""
    if budget is None:
        return None
    fits = [r for r in rows if memory(r, on) <= budget]
    return min(fits, key=lambda r: (r.flops, r.host_bytes, memory(r, on), r.peak_bytes)) if fits else None
