"""``python -m judge bench``: how long a learner waits, measured side by side with the naive design.

Per problem, the accepted submissions are graded many times through the warm zygote (p50 and
p95 latency), a few times with a fresh interpreter per child (the naive design, in the same
run), and by two graders at once for throughput. The reference's expected results are computed
before any timing, as in production (once per problem version). Each grading runs in new
children. The warm figures are of a program graded again by the same learner (its compiled
program kept: ``judge.grading.compiled_programs``), and, alternating with them in the same
loop, of a program the judge has not compiled (``warm_new_*``: nothing of a submission's own
work kept); the fresh-interpreter and throughput gradings keep nothing either.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .data import verdicts
from .grading.expected import ExpectedCache
from .grading.grader import grade
from .packages.package import Problem
from .runners.fresh_runner import FreshInterpreterRunner


@dataclass
class Figures:
    problem: str
    warm_p50_s: float
    warm_p95_s: float
    warm_new_p50_s: float  # the same gradings with nothing kept of the program (a program not graded before)
    cold_p50_s: float
    speedup: float
    throughput_per_min: float
    gradings: int
    all_accepted: bool
    load_average: tuple  # the machine's 1-minute load average before and after, for context

    def to_dict(self) -> dict:
        return asdict(self)


BENCH_SCOPE = "bench"  # the one learner whose programs the benchmark grades again


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _sources(problem: Problem) -> list[str]:
    return [path.read_text(encoding="utf-8") for path in problem.submissions.get(verdicts.ACCEPTED, [])]


def _timed(problem: Problem, source: str, runner, cache: ExpectedCache, scope: str | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    report = grade(problem, source, runner=runner, expected_cache=cache, scope=scope)
    return time.perf_counter() - started, report.verdict


def measure(
    problem: Problem, warm_runner, *, runs: int = 20, cold_runs: int = 3, throughput_runs: int = 24, graders: int = 2
) -> Figures:
    sources = _sources(problem)
    if not sources:
        raise ValueError(f"{problem.slug} has no accepted submission to grade")
    load_before = os.getloadavg()[0]
    cache = ExpectedCache()
    cache.get(problem, problem.cases, warm_runner)  # once per problem version, before any timing
    seen: list[str] = []
    warm, warm_new = [], []
    for source in sources:  # each accepted program graded once before, as a learner's resubmission is
        seen.append(_timed(problem, source, warm_runner, cache, scope=BENCH_SCOPE)[1])
    for i in range(runs):
        for scope, into in ((BENCH_SCOPE, warm), (None, warm_new)):
            elapsed, verdict = _timed(problem, sources[i % len(sources)], warm_runner, cache, scope)
            into.append(elapsed)
            seen.append(verdict)
    cold_runner = FreshInterpreterRunner()
    cold = []
    for i in range(cold_runs):
        elapsed, verdict = _timed(problem, sources[i % len(sources)], cold_runner, cache)
        cold.append(elapsed)
        seen.append(verdict)
    per_grader = max(1, throughput_runs // graders)
    lock = threading.Lock()

    def grader(offset: int) -> None:
        for i in range(per_grader):
            _, verdict = _timed(problem, sources[(i + offset) % len(sources)], warm_runner, cache)
            with lock:
                seen.append(verdict)

    threads = [threading.Thread(target=grader, args=(g,)) for g in range(graders)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    warm_p50 = statistics.median(warm)
    cold_p50 = statistics.median(cold)
    return Figures(
        problem=problem.slug,
        warm_p50_s=round(warm_p50, 3),
        warm_p95_s=round(percentile(warm, 0.95), 3),
        warm_new_p50_s=round(statistics.median(warm_new), 3),
        cold_p50_s=round(cold_p50, 3),
        speedup=round(cold_p50 / warm_p50, 2),
        throughput_per_min=round(per_grader * graders / elapsed * 60, 1),
        gradings=len(seen),
        all_accepted=all(v == verdicts.ACCEPTED for v in seen),
        load_average=(round(load_before, 2), round(os.getloadavg()[0], 2)),
    )


def problem_folders(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if (p / "problem.toml").exists())
