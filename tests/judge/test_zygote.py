"""The warm zygote runner: one per process, restarted when it dies, safe to share between threads,
and it leaves no process behind."""

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.grading.expected import ExpectedCache
from judge.grading.grader import default_runner
from judge.packages.limits import Limits
from judge.runners.zygote_runner import ZygoteRunner, shared_runner
from tests.escape import escaping
from tests.tightened import tightened

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"
ACCEPTED = (DOT / "submissions" / "accepted" / "decorator.py").read_text()
NO_CHECKPOINT = (DOT / "submissions" / "policy_violation" / "no_checkpoint.py").read_text()


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


@pytest.fixture(scope="module")
def cache():
    return ExpectedCache()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _children_of(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _left_behind(runner: ZygoteRunner) -> list[int]:
    """The zygote's children but those forked ahead for the next request (which ran nothing)."""
    ready = runner.ready_pids()
    assert len(ready) <= 2  # one per role at most
    return [pid for pid in _children_of(runner.pid) if pid not in ready]


def _eventually(condition, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_default_runner_is_the_one_shared_zygote_runner():
    assert default_runner() is default_runner() is shared_runner()
    assert isinstance(default_runner(), ZygoteRunner)


def test_the_zygote_is_single_threaded_so_forking_it_is_safe():
    runner = shared_runner()
    runner.layers()
    assert len(os.listdir(f"/proc/{runner.pid}/task")) == 1


def test_a_zygote_that_died_is_restarted_on_the_next_grading(problem, cache):
    runner = ZygoteRunner()
    try:
        runner.layers()
        first = runner.pid
        os.kill(first, signal.SIGKILL)  # our own zygote, started just above
        assert _eventually(lambda: not _alive(first))
        assert grade(problem, ACCEPTED, runner=runner, expected_cache=cache).verdict == "accepted"
        assert runner.pid != first and _alive(runner.pid)
    finally:
        runner.close()


def test_two_graders_share_one_runner_at_once(problem, cache):
    runner = shared_runner()
    results = {}

    def grade_one(name, source):
        results[name] = grade(problem, source, runner=runner, expected_cache=cache).verdict

    threads = [
        threading.Thread(target=grade_one, args=(f"{kind}{i}", source))
        for i in range(2)
        for kind, source in (("accepted", ACCEPTED), ("violation", NO_CHECKPOINT))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {
        "accepted0": "accepted",
        "violation0": "policy_violation",
        "accepted1": "accepted",
        "violation1": "policy_violation",
    }


def test_a_child_past_its_wall_clock_is_killed(problem, cache, past_the_gate):
    sleeper = escaping("def checkpoint_dot_policy(w1, w2, x):\n    _module('time').sleep(600)\n")
    runner = ZygoteRunner()
    try:
        tight = tightened(problem, Limits(wall_s=3, cpu_s=3, memory_mb=2048, output_kb=8), cache, runner)
        started = time.monotonic()
        report = grade(tight, sleeper, runner=runner, expected_cache=cache)
        assert report.verdict == "time_limit" and "longer than 3 s" in report.message
        assert time.monotonic() - started < 30
        assert _eventually(lambda: _left_behind(runner) == [])
    finally:
        runner.close()


def test_each_child_runs_as_a_uid_of_its_own_that_nothing_else_holds(problem):
    runner = shared_runner()
    first, second = runner.prepare(problem.limits), runner.prepare(problem.limits)
    try:
        if os.geteuid() != 0:
            assert first.uid is None and second.uid is None  # no uid layer without root
            return
        assert first.uid != second.uid and first.uid != os.getuid()
        assert _eventually(lambda: _uid_of(first.pid) == first.uid and _uid_of(second.pid) == second.uid)
    finally:
        first.discard()
        second.discard()


def _uid_of(pid: int) -> int | None:
    try:
        line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("Uid:"))
    except (OSError, StopIteration):
        return None
    return int(line.split()[1])


def test_a_prepared_child_that_is_not_needed_is_killed(problem):
    runner = shared_runner()
    child = runner.prepare(problem.limits, role="verify")
    assert _alive(child.pid)
    child.discard()
    assert _eventually(lambda: not _alive(child.pid))


def test_closing_the_runner_stops_its_zygote_and_its_children(problem):
    runner = ZygoteRunner()
    child = runner.prepare(problem.limits, role="verify")
    zygote = runner.pid
    assert _alive(child.pid) and child.pid in _children_of(zygote)
    runner.close()
    assert _eventually(lambda: not _alive(zygote) and not _alive(child.pid))


def test_gradings_leave_no_child_behind(problem, cache):
    runner = shared_runner()
    for source in (ACCEPTED, NO_CHECKPOINT):
        grade(problem, source, runner=runner, expected_cache=cache)
    assert _eventually(lambda: _left_behind(runner) == [])


def test_a_child_forked_ahead_serves_the_next_grading_and_one_request_only(problem, cache):
    runner = ZygoteRunner(ahead=True)
    try:
        assert grade(problem, ACCEPTED, runner=runner, expected_cache=cache).verdict == "accepted"
        ready = runner.ready_pids()
        assert len(ready) == 2  # the next submission's child and the next verifier, waiting
        assert grade(problem, NO_CHECKPOINT, runner=runner, expected_cache=cache).verdict == "policy_violation"
        assert _eventually(lambda: not any(_alive(pid) for pid in ready))  # each served one request, then ended
        assert set(runner.ready_pids()).isdisjoint(ready)
    finally:
        runner.close()


def test_without_children_ahead_gradings_leave_nothing_behind(problem, cache):
    runner = ZygoteRunner(ahead=False)
    try:
        assert grade(problem, ACCEPTED, runner=runner, expected_cache=cache).verdict == "accepted"
        assert runner.ready_pids() == []
        assert _eventually(lambda: _children_of(runner.pid) == [])
    finally:
        runner.close()


def test_a_child_forked_ahead_for_other_limits_is_not_used(problem):
    import dataclasses

    runner = ZygoteRunner(ahead=True)
    try:
        first = runner.prepare(problem.limits)
        (waiting,) = runner.ready_pids()
        other = dataclasses.replace(problem.limits, wall_s=problem.limits.wall_s + 1)
        second = runner.prepare(other)
        assert second.pid != waiting
        assert _eventually(lambda: not _alive(waiting))
        first.discard()
        second.discard()
    finally:
        runner.close()


def test_only_a_child_that_never_got_its_sandbox_may_blame_it():
    from judge.data import protocol
    from judge.data.messages import SandboxFailed
    from judge.runners.boundary import interpret

    claim = {"result": protocol.encode(SandboxFailed("seccomp: EINVAL").to_wire())}
    before = interpret(claim, None, 86, Limits(), 0.1, 0.05, hardened=False)
    assert before.outcome == "sandbox_error" and "seccomp: EINVAL" in before.detail
    after = interpret(claim, None, 0, Limits(), 0.1, 0.05, hardened=True)
    assert after.outcome == "protocol_error"  # the submission's words: a runtime_error, not retried
    unknown = interpret(claim, None, 0, Limits(), 0.1, 0.05)  # a runner without the pipe
    assert unknown.outcome == "protocol_error"
