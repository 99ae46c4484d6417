"""The hostile corpus, run inside a wall of its own: each submission gets its verdict, nothing escapes.

One walled subprocess (``run_corpus.py``) grades the whole corpus with a zygote of its own, as
sent and past the gate. This side prepares what an escape would touch (canary files with a
secret, a listening socket, a secret in the environment, the problem's own files) and checks
afterwards that none of it was read, written, reached or killed.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import sys
from pathlib import Path

import pytest

from tests.hostile.corpus import CORPUS
from tests.hostile.wall import Wall

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = ROOT / "problems" / "checkpoint_dot_policy"
TOKEN = secrets.token_hex(16)  # the secret: inside the canary files and the environment only
NAME = secrets.token_hex(8)  # in file names, which the submissions are told


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile")
    canary = Path(f"/tmp/judge-canary-{NAME}")
    canary.write_text(f"canary {TOKEN}")
    project_dir = ROOT / "var"
    project_dir.mkdir(exist_ok=True)
    cache_canary = project_dir / f"judge-canary-{NAME}"
    cache_canary.write_text(f"expected results {TOKEN}")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    placeholders = {
        "reference": PROBLEM / "reference.py",
        "canary": canary,
        "cache": cache_canary,
        "marker": f"/tmp/judge-hostile-{NAME}",
        "marker_name": f"judge-hostile-{NAME}",
        "project_marker": project_dir / f"judge-hostile-{NAME}",
        "port": listener.getsockname()[1],
    }
    settings = work / "settings.json"
    result = work / "result.json"
    before = _digest(PROBLEM)
    env = dict(os.environ, JUDGE_HOSTILE_SECRET=TOKEN)
    try:
        with Wall() as wall:
            settings.write_text(
                json.dumps({"placeholders": {k: str(v) for k, v in placeholders.items()}, "wall": wall.description})
            )
            finished = wall.run(
                [sys.executable, str(Path(__file__).with_name("run_corpus.py")), str(settings), str(result)],
                timeout_s=900,
                env=env,
            )
            survivors = wall.survivors()
        assert finished.returncode == 0, finished.stdout + finished.stderr
        summary = json.loads(result.read_text())
        try:
            listener.accept()
            connected = True
        except BlockingIOError:
            connected = False
        yield {
            "summary": summary,
            "wall": wall.kind,
            "survivors": survivors,
            "connected": connected,
            "problem_unchanged": _digest(PROBLEM) == before,
            "placeholders": placeholders,
        }
    finally:
        listener.close()
        canary.unlink()
        cache_canary.unlink()


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_each_hostile_submission_gets_its_verdict_as_sent_and_past_the_gate(run, case):
    found = run["summary"]["results"][case.name]
    deep, message = case.expected(root=os.geteuid() == 0)
    assert found["gated"]["verdict"] == case.gated, found["gated"]
    assert found["deep"]["verdict"] == deep, found["deep"]
    if case.gated == "forbidden":
        assert found["gated"]["message"].startswith("line "), found["gated"]["message"]
    assert message in found["deep"]["message"], found["deep"]["message"]
    if case.policies is not None:
        assert tuple(found["deep"]["policies"]) == case.policies


def test_no_secret_and_no_file_of_the_host_reaches_any_report(run):
    reference = (PROBLEM / "reference.py").read_text()
    for name, found in run["summary"]["results"].items():
        for mode in ("gated", "deep"):
            text = found[mode]["message"] + found[mode]["stdout"]
            assert TOKEN not in text, (name, mode)
            assert "root:x:0:0" not in text and reference not in text, (name, mode)
            assert "WRITTEN" not in text, (name, mode)


def test_nothing_on_the_host_changed(run):
    assert run["problem_unchanged"], "a submission changed the problem's files"
    for key in ("marker", "project_marker"):
        assert not Path(run["placeholders"][key]).exists(), key
    assert not run["connected"], "a submission reached a socket on the host"


def test_the_zygote_survives_the_corpus_and_still_grades_correctly(run):
    summary = run["summary"]
    assert summary["zygote_alive"] and summary["zygote_before"] == summary["zygote_after"]
    assert summary["correct_after"]["verdict"] == "accepted", summary["correct_after"]


def test_no_sandboxed_process_outlives_its_grading(run):
    summary = run["summary"]
    if os.geteuid() == 0:  # a uid of its own for every child: dozens of them over the corpus
        assert len(summary["child_uids"]) >= len(CORPUS)
    assert summary["processes_of_child_uids"] == [], "a child's uid still ran processes after the run"
    assert run["survivors"] == [], f"processes left in the {run['wall']} wall"


def test_the_corpus_ran_inside_a_second_wall(run):
    expected = "cgroup" if os.access("/sys/fs/cgroup", os.W_OK) else "rlimits"
    assert run["wall"].startswith(expected), run["wall"]
    if expected == "cgroup":
        assert f"judge-hostile-{os.getpid()}" in run["summary"]["own_cgroups"]
