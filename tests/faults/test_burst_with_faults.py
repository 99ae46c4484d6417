"""A class's deadline burst while every part of the grading path fails once.

The real processes, started as ``make run`` starts them, take 100 "Submit" POSTs from 17
learners over HTTP; while they are graded, a worker pool process is killed, Redis is killed and
restarted, the whole worker is killed and restarted, and (on PostgreSQL, when one is reachable)
the database is unavailable for 20 s. Every submission must end graded once, with the verdict its
packaged folder names. How long it took is the benchmark's business (``make bench``), not this
test's. Run alone: ``pytest -m faults``."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import pytest

from devstack.postgres import find_server
from tests.hostile.wall import Wall

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.e2e]
SUBMISSIONS = 100  # enough for every fault to strike gradings in flight; the benchmark sends 300


@pytest.fixture(scope="module")
def burst(tmp_path_factory):
    work = tmp_path_factory.mktemp("burst")
    server = find_server()
    settings_path, result_path = work / "settings.json", work / "result.json"
    with Wall() as wall:
        settings_path.write_text(
            json.dumps(
                {
                    "wall": wall.description,
                    "var": str(work / "var"),
                    "submissions": SUBMISSIONS,
                    "database": "postgresql" if server else "sqlite",
                    "server": dataclasses.asdict(server) if server else None,
                }
            )
        )
        finished = wall.run(
            [sys.executable, str(Path(__file__).with_name("run_burst.py")), str(settings_path), str(result_path)],
            timeout_s=900,
            env=dict(os.environ),
        )
        survivors = wall.survivors()
    assert finished.returncode == 0, finished.stdout[-5000:] + finished.stderr[-5000:]
    print(finished.stdout)
    return {**json.loads(result_path.read_text()), "survivors": survivors, "wall": wall.kind}


def test_every_submission_of_the_burst_is_graded_once_with_its_expected_verdict(burst):
    assert burst["rejected_posts"] == [] and burst["submissions"] == SUBMISSIONS
    assert burst["wrong"] == []  # each done, with its packaged folder's verdict
    assert burst["graded_twice"] == []  # no grading ran to its end twice
    # One attempt each, but for the gradings a kill interrupted (their second attempt finished them).
    assert burst["unexpected_attempts"] == []


@pytest.mark.parametrize(
    "fault", ["worker pool process killed", "Redis killed (kill -9) and restarted", "whole worker killed and restarted"]
)
def test_each_fault_struck_while_grading_went_on_and_grading_resumed(burst, fault):
    [injected] = [f for f in burst["injected"] if f["name"] == fault]
    assert injected["back_at"] > injected["injected_at"] > 0
    assert injected["first_verdict_s"] is not None  # verdicts came after the part was back
    if fault != "Redis killed (kill -9) and restarted":
        assert injected["interrupted"], "the kill struck no grading: it tested nothing"


def test_a_database_outage_of_20_s_loses_nothing(burst):
    [outage] = [f for f in burst["injected"] if f["name"].startswith("database away")]
    if outage["skipped"]:
        pytest.skip(f"no PostgreSQL reachable: {outage['skipped']}")
    assert outage["back_at"] - outage["injected_at"] >= 20 and outage["first_verdict_s"] is not None
    assert burst["database"] == "postgresql" and burst["wrong"] == [] and burst["graded_twice"] == []


def test_nothing_the_stack_started_outlived_it(burst):
    assert burst["survivors"] == [], f"left running in the wall ({burst['wall']})"
