"""The burst's result: what was measured and checked (``measure``), and its table (``report``)."""

from __future__ import annotations

import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .burst_faults import Fault
from .burst_observer import Observer, timestamp

GRADED = re.compile(r"graded submission (\d+), attempt \d+: (\w+)")


@dataclass
class Result:
    database: str
    faults: bool
    submissions: int
    learners: int
    drain_s: float = 0.0
    p50_s: float = 0.0
    p95_s: float = 0.0
    injected: list[Fault] = field(default_factory=list)
    wrong: list = field(default_factory=list)  # (id, expected, status, verdict)
    graded_twice: list = field(default_factory=list)  # (id, times): finished gradings beyond the first
    unexpected_attempts: list = field(default_factory=list)  # (id, attempts), not interrupted by a kill
    rejected_posts: list = field(default_factory=list)
    load_average: list = field(
        default_factory=list
    )  # 1-minute load average before and after: the machine may be shared
    evidence: list = field(default_factory=list)  # the worker's log lines on what went wrong, to say why

    @property
    def ok(self) -> bool:
        return not (self.wrong or self.graded_twice or self.unexpected_attempts or self.rejected_posts)

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def measure(
    result: Result, observer: Observer, expected: dict, started: float, faults: list[Fault], worker_log: Path
) -> None:
    """Fills ``result`` in: the drain, the latencies, the gradings' counts (``worker_log``: the
    worker's log, its "graded submission" lines), and each fault's stall and recovery."""
    rows = observer.rows()
    latencies, last = [], started
    for sid, verdict in expected.items():
        status, got, attempts, created, finished = rows[sid]
        if (status, got) != ("done", verdict):
            result.wrong.append((sid, verdict, status, got))
            continue
        latencies.append(timestamp(finished) - timestamp(created))
        last = max(last, timestamp(finished))
    result.drain_s = last - started
    if latencies:
        result.p50_s = statistics.median(latencies)
        result.p95_s = statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else latencies[0]
    interrupted = {sid for fault in faults for sid in fault.interrupted}
    log = worker_log.read_text(errors="replace")
    times = {}
    for match in GRADED.finditer(log):
        times[int(match.group(1))] = times.get(int(match.group(1)), 0) + 1
    # A kill may land after a grading ended and before its verdict was stored: that one grading is
    # lost with its process, and only there is a second one allowed.
    result.graded_twice = sorted(
        (sid, n) for sid, n in times.items() if sid in expected and n > (2 if sid in interrupted else 1)
    )
    result.unexpected_attempts = sorted(
        (sid, rows[sid][2]) for sid in expected if rows[sid][2] != 1 and sid not in interrupted
    )
    named = {sid for sid, _ in result.unexpected_attempts + result.graded_twice}
    result.evidence = [line for line in log.splitlines() if any(f"submission {sid}," in line for sid in named)][:20]
    verdicts = observer.verdict_times()
    struck = [f for f in faults if not f.skipped]
    for fault, following in zip(struck, struck[1:] + [None]):
        end = following.injected_at if following else last
        window = [fault.back_at] + [t for t in verdicts if fault.back_at <= t <= end]
        fault.first_verdict_s = window[1] - fault.back_at if len(window) > 1 else None
        fault.stall_s = max(b - a for a, b in zip(window, window[1:] + [max(end, window[-1])]))
        if fault.interrupted:
            fault.recovered_s = max(timestamp(rows[sid][4]) for sid in fault.interrupted) - fault.back_at
    result.injected = faults


def report(results: list[Result]) -> str:
    lines = [
        f"{'database':10s}  {'faults':6s}  {'submissions':>11s}  {'drain s':>7s}  {'verdicts/min':>12s}  "
        f"{'p50 s':>6s}  {'p95 s':>6s}  {'load':>9s}  all graded once, right"
    ]
    for r in results:
        rate = r.submissions / r.drain_s * 60 if r.drain_s else 0
        lines.append(
            f"{r.database:10s}  {'yes' if r.faults else 'no':6s}  {r.submissions:11d}  {r.drain_s:7.1f}  "
            f"{rate:12.0f}  {r.p50_s:6.2f}  {r.p95_s:6.2f}  {'->'.join(f'{x:.1f}' for x in r.load_average):>9s}  "
            f"{'yes' if r.ok else 'NO'}"
        )
    for r in results:
        if r.faults:
            lines.append(
                f"\nfaults on {r.database}, from the moment the part was back: the first verdict, the "
                f"longest time without one (until the next fault), the gradings the fault interrupted"
            )
            for f in r.injected:
                if f.skipped:
                    lines.append(f"  {f.name:40s}  skipped: {f.skipped}")
                    continue
                recovered = (
                    ""
                    if f.recovered_s is None
                    else f", interrupted ones done {f.recovered_s:5.1f} s after ({len(f.interrupted)})"
                )
                first = (
                    "no verdict after it"
                    if f.first_verdict_s is None
                    else f"first verdict {f.first_verdict_s:5.1f} s after"
                )
                lines.append(
                    f"  {f.name:38s}  back {f.back_at - f.injected_at:5.1f} s after it; {first}, "
                    f"longest stall {f.stall_s:5.1f} s{recovered}"
                )
    clean = {r.database: r.drain_s for r in results if not r.faults}
    for r in results:
        if r.faults and clean.get(r.database):
            lines.append(
                f"\n{r.database}: the burst with faults drained in {r.drain_s / clean[r.database]:.2f} times "
                f"the fault-free drain"
            )
    for r in results:
        if not r.ok:
            lines.append(
                f"\nNOT OK on {r.database} (faults: {r.faults}): wrong {r.wrong[:5]}, graded twice "
                f"{r.graded_twice[:5]}, attempts {r.unexpected_attempts[:5]}, refused {r.rejected_posts[:3]}"
            )
            lines += [f"  worker's log: {line}" for line in r.evidence]
    return "\n".join(lines)
