"""Grade the hostile corpus with a zygote of its own and write what happened as JSON.

Run by ``test_hostile.py`` inside its wall: ``python run_corpus.py SETTINGS.json RESULT.json``.
Each submission is graded as sent and past the gate; then a correct submission, to show the
zygote still grades correctly; the zygote's pid is recorded before and after.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.hostile import wall  # noqa: E402

if __name__ == "__main__":  # inside the wall before anything else starts
    wall.enter(json.loads(Path(sys.argv[1]).read_text())["wall"])

from judge import grade, load_problem  # noqa: E402
from judge.grading.expected import ExpectedCache  # noqa: E402
from judge.in_child import gate  # noqa: E402
from judge.packages.limits import Limits  # noqa: E402
from judge.runners.zygote_runner import ZygoteRunner  # noqa: E402
from tests.hostile.corpus import CORPUS  # noqa: E402
from tests.tightened import tightened  # noqa: E402

PROBLEM = ROOT / "problems" / "checkpoint_dot_policy"
LIMITS = Limits(wall_s=8, cpu_s=4, memory_mb=2048, output_kb=8)


def fill(source: str, values: dict) -> str:
    for key, value in values.items():
        source = source.replace("{" + key + "}", str(value))
    return source


def report_of(problem, source: str, runner, cache, past_gate: bool) -> dict:
    real_check = gate.check
    if past_gate:
        gate.check = lambda source: None  # as if the gate had let it through
    try:
        report = grade(problem, source, runner=runner, expected_cache=cache)
    finally:
        gate.check = real_check
    return {
        "verdict": report.verdict,
        "message": report.message,
        "stdout": report.stdout,
        "notes": report.notes,
        "policies": [c.policy_text for c in (report.structure.checkpoints if report.structure else [])],
    }


def main(settings_path: str, result_path: str) -> None:
    settings = json.loads(Path(settings_path).read_text())
    values = dict(settings["placeholders"], driver_pid=os.getpid())
    runner, cache = ZygoteRunner(), ExpectedCache()
    uids = _record_uids(runner)  # the reference's children too
    problem = tightened(load_problem(PROBLEM), LIMITS, cache, runner)
    runner.layers()
    zygote_before = runner.pid
    results = {}
    for case in CORPUS:
        results[case.name] = {
            "gated": report_of(problem, fill(case.gated_source, values), runner, cache, past_gate=False),
            "deep": report_of(problem, fill(case.source_past_gate, values), runner, cache, past_gate=True),
        }
    correct = (PROBLEM / "submissions" / "accepted" / "decorator.py").read_text()
    after = report_of(problem, correct, runner, cache, past_gate=False)
    summary = {
        "results": results,
        "zygote_before": zygote_before,
        "zygote_after": runner.pid,
        "zygote_alive": runner._proc.poll() is None,
        "correct_after": after,
        "own_cgroups": Path("/proc/self/cgroup").read_text(),
    }
    runner.close()
    summary["child_uids"] = sorted(uids)
    summary["processes_of_child_uids"] = _processes_of(uids)
    Path(result_path).write_text(json.dumps(summary))


def _record_uids(runner) -> set:
    """Every uid the runner's children get (each child has one of its own while it lives)."""
    uids, prepare = set(), runner.prepare

    def recording(limits, role="run"):
        child = prepare(limits, role)
        uids.add(child.uid)
        return child

    runner.prepare = recording
    return uids


def _processes_of(uids: set) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            line = next(x for x in status.read_text().splitlines() if x.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        if {int(u) for u in line.split()[1:]} & uids:
            found.append(int(status.parent.name))
    return found


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
