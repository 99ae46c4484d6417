"""``python -m devstack bench --soak``: one long-lived grading parent grades the whole bank, and counts
what its own state did to verdicts.

A worker's grading parent lives for thousands of gradings; nothing one grading leaves in its
interpreter (the parser's state, a cache, a patched module) may change another's verdict. Here one
process, with one warm zygote per remat implementation (JAX 0.10.2's default and ``jax_remat3``),
grades in two threads at once, one per remat (as the suite's bank tests do, and as any parent that
serves threads would), for ``--soak-rounds`` rounds: every problem's reference and packaged
submissions, the integrity corpus (``tests/integrity/cases``) and the hostile corpus as a stranger
sends it (``tests/hostile/corpus.py``, the gate first, under the hostile test's tight limits).

Reported: the gradings, every ``internal_error`` (target: none), every verdict other than the one
its folder (or the package's ``[remat3]``) names, how often Python's parser was refused by the
interpreter's own state and recovered (``judge.data.syntax``), and the parent's resident memory
before and after. Writes ``var/bench/soak.json``; exits 1 on any internal error or wrong verdict.
"""

from __future__ import annotations

import ast
import json
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .processes import ROOT

ROUNDS = 3
HOSTILE_PROBLEM = "checkpoint_dot_policy"
LANES = {"jax_remat": "false", "remat3": "true"}


@dataclass(frozen=True)
class Item:
    corpus: str  # bank, integrity, hostile
    problem: str
    name: str
    source: str
    expected: str
    expected_remat3: str | None  # None: not graded under remat3 (the suite's own choice, see its tests)


@dataclass
class Graded:
    lane: str
    round: int
    corpus: str
    problem: str
    name: str
    expected: str
    verdict: str
    seconds: float
    message: str


def add_arguments(parser) -> None:
    parser.add_argument(
        "--soak",
        action="store_true",
        help="instead of the pages: one long-lived grading parent grades the bank, the integrity and "
        "the hostile corpus, both remats at once, for several rounds, and counts internal errors",
    )
    parser.add_argument("--soak-rounds", type=int, default=ROUNDS)
    parser.add_argument("--soak-problems", nargs="*", default=[], help="only these problems (default: the bank)")


def bank_items(load_problem, only: list[str]) -> list[Item]:
    from judge.data import syntax
    from judge.validate import steps
    from tests.integrity.test_integrity import PAST_THE_GATE, REMAT3_BLIND, REMAT3_VERDICTS

    items = []
    for folder in sorted(p for p in (ROOT / "problems").iterdir() if (p / "problem.toml").exists()):
        if only and folder.name not in only:
            continue
        problem = load_problem(folder)
        for step in steps(problem):
            name = step.name(problem)
            remat3 = problem.remat3_expected.get(name, step.expected)
            items.append(Item("bank", folder.name, name, step.path.read_text(), step.expected, remat3))
        cases = ROOT / "tests" / "integrity" / "cases" / folder.name
        for path in sorted(cases.glob("*/*.py")) if cases.is_dir() else []:
            # As sent: a case the gate now covers too is refused by it (its test grades it past the gate as well).
            source, name = path.read_text(), path.relative_to(cases).as_posix()
            sent = "forbidden" if PAST_THE_GATE in (ast.get_docstring(syntax.parse(source)) or "") else path.parent.name
            remat3 = None if folder.name in REMAT3_BLIND else REMAT3_VERDICTS.get(f"{folder.name}/{name}", sent)
            items.append(
                Item("integrity", folder.name, name, source, sent, "forbidden" if sent == "forbidden" else remat3)
            )
    return items


def hostile_items(sandbox: Path, driver_pid: int) -> list[Item]:
    """The hostile corpus as a stranger sends it, its placeholders aimed at harmless targets: files in
    a folder of the soak's own, a port nothing listens on, and a sleeping process of the soak's own
    as the 'driver' to kill (were it killed, the soak reports it)."""
    from tests.hostile.corpus import CORPUS

    from .processes import free_port

    values = {
        "reference": sandbox / "reference.py",
        "canary": sandbox / "canary",
        "cache": sandbox / "cache",
        "marker": sandbox / "marker",
        "marker_name": "marker",
        "project_marker": sandbox / "project-marker",
        "port": free_port(),
        "driver_pid": driver_pid,
    }
    items = []
    for case in CORPUS:
        source = case.gated_source
        for key, value in values.items():
            source = source.replace("{" + key + "}", str(value))
        items.append(Item("hostile", HOSTILE_PROBLEM, case.name, source, case.gated, case.gated))
    return items


def _resident_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(options) -> int:
    from judge import grade, load_problem
    from judge.data import syntax, verdicts
    from judge.packages.limits import Limits
    from judge.runners.zygote_runner import ZygoteRunner
    from tests.tightened import tightened

    out = ROOT / "var" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    sleeper = subprocess.Popen(["sleep", "100000"])
    runners = {lane: ZygoteRunner(remat3=value) for lane, value in LANES.items()}
    graded: list[Graded] = []
    crashed: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="soak-") as sandbox:
            problems = {}
            items = bank_items(load_problem, options.soak_problems)
            items += hostile_items(Path(sandbox), sleeper.pid)
            for item in items:
                if item.problem not in problems:
                    problems[item.problem] = load_problem(ROOT / "problems" / item.problem)
            # The hostile test's limits, its reference computed under the package's own (tests/tightened.py).
            hostile_limits = Limits(wall_s=8, cpu_s=4, memory_mb=2048, output_kb=8)
            hostile = {
                lane: tightened(problems[HOSTILE_PROBLEM], hostile_limits, None, runner)
                for lane, runner in runners.items()
            }
            resident_before = _resident_mib()
            started = time.monotonic()
            print(
                f"soak: {len(items)} submissions a round, {options.soak_rounds} rounds, two remats at once", flush=True
            )

            def lane_work(lane: str) -> None:
                runner = runners[lane]
                for number in range(1, options.soak_rounds + 1):
                    for item in items:
                        problem = hostile[lane] if item.corpus == "hostile" else problems[item.problem]
                        expected = item.expected_remat3 if lane == "remat3" else item.expected
                        if expected is None:
                            continue
                        began = time.monotonic()
                        try:
                            report = grade(problem, item.source, runner=runner)
                            verdict, message = report.verdict, report.message
                        except Exception as exc:  # noqa: BLE001 (the grading parent itself failed: counted)
                            verdict, message = "exception", f"{type(exc).__name__}: {exc}"
                        graded.append(
                            Graded(
                                lane,
                                number,
                                item.corpus,
                                item.problem,
                                item.name,
                                expected,
                                verdict,
                                round(time.monotonic() - began, 3),
                                message[:300],
                            )
                        )
                    print(f"soak: {lane} round {number} done after {time.monotonic() - started:.0f} s", flush=True)

            def guarded(lane: str) -> None:
                try:
                    lane_work(lane)
                except BaseException as exc:  # noqa: BLE001
                    crashed.append(f"{lane}: {type(exc).__name__}: {exc}")

            threads = [threading.Thread(target=guarded, args=(lane,), name=f"soak-{lane}") for lane in LANES]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.monotonic() - started
    finally:
        for runner in runners.values():
            runner.close()
        driver_alive = sleeper.poll() is None
        sleeper.kill()
        sleeper.wait()

    internal = [g for g in graded if g.verdict in (verdicts.INTERNAL_ERROR, "exception")]
    wrong = [g for g in graded if g.verdict != g.expected and g not in internal]
    summary = {
        "gradings": len(graded),
        "rounds": options.soak_rounds,
        "elapsed_s": round(elapsed, 1),
        "per_round_s": {
            lane: statistics.median(
                sum(g.seconds for g in graded if g.lane == lane and g.round == n)
                for n in range(1, options.soak_rounds + 1)
            )
            for lane in LANES
        },
        "by_corpus": {c: sum(1 for g in graded if g.corpus == c) for c in ("bank", "integrity", "hostile")},
        "internal_errors": [asdict(g) for g in internal],
        "wrong_verdicts": [asdict(g) for g in wrong],
        "crashed_lanes": crashed,
        "parser_refusals_recovered": dict(syntax.RECOVERED),
        "resident_mib": {"before": round(resident_before, 1), "after": round(_resident_mib(), 1)},
        "driver_alive": driver_alive,
    }
    (out / "soak.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({k: v for k, v in summary.items() if k not in ("internal_errors", "wrong_verdicts")}, indent=2))
    for g in internal + wrong:
        print(
            f"  {g.lane} round {g.round} {g.corpus} {g.problem}/{g.name}: expected {g.expected}, got {g.verdict}: {g.message}"
        )
    ok = not internal and not wrong and not crashed and driver_alive
    print(f"soak: {'no internal error, every verdict as expected' if ok else 'FAILED'} (var/bench/soak.json)")
    return 0 if ok else 1
