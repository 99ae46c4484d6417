"""Which sandbox layers hold, what a report says when one is missing, and the setting that makes
the judge refuse to grade without all of them."""

import os
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.explorer.explore import ExploreError, explore
from judge.grading.expected import ExpectedCache
from judge.grading.inspecting import inspect
from judge.runners.fresh_runner import FreshInterpreterRunner
from judge.runners.zygote_runner import shared_runner
from judge.sandbox import layers

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"
ACCEPTED = (DOT / "submissions" / "accepted" / "decorator.py").read_text()
ROOT_ONLY = {layers.NAMESPACES, layers.FILESYSTEM, layers.UID}


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


def test_the_zygote_runner_reports_every_layer_in_order():
    found = shared_runner().layers()
    assert list(found) == list(layers.ALL_LAYERS)
    if os.geteuid() == 0:  # this machine: every layer holds as root
        assert all(state["ok"] for state in found.values()), found
    else:  # elsewhere, what needs root is missing, with the reason
        assert {name for name, state in found.items() if not state["ok"]} <= ROOT_ONLY
        assert all(state["detail"] for state in found.values())


def test_a_report_names_the_missing_layers(problem):
    report = grade(problem, ACCEPTED, runner=FreshInterpreterRunner(), expected_cache=ExpectedCache())
    assert report.verdict == "accepted"
    [note] = report.notes
    assert note.startswith("sandbox layers missing on this machine: ")
    for name in (layers.ZYGOTE, layers.SECCOMP, layers.UID, layers.NAMESPACES):
        assert f"{name} (" in note


def test_requiring_all_layers_refuses_to_grade_without_them(problem, monkeypatch):
    monkeypatch.setenv("JUDGE_REQUIRE_ALL_LAYERS", "1")
    report = grade(problem, ACCEPTED, runner=FreshInterpreterRunner(), expected_cache=ExpectedCache())
    assert report.verdict == "internal_error"
    assert report.message.startswith(
        "refusing to grade: JUDGE_REQUIRE_ALL_LAYERS is set and these sandbox layers are missing: zygote"
    )
    assert "seccomp (" in report.message


def test_inspect_and_the_explorer_refuse_like_a_grading_without_every_layer(problem, monkeypatch):
    """They run a learner's code too: before, Inspect ran it where a grading would have refused."""
    monkeypatch.setenv("JUDGE_REQUIRE_ALL_LAYERS", "1")
    refusal = "refusing to grade: JUDGE_REQUIRE_ALL_LAYERS is set and these sandbox layers are missing: zygote"
    report = inspect(problem, ACCEPTED, FreshInterpreterRunner())
    assert report.verdict == "internal_error" and report.message.startswith(refusal)
    with pytest.raises(ExploreError, match=refusal):
        explore(ACCEPTED, "checkpoint_dot_policy", ["f32[4,8]", "f32[8,4]", "f32[3,4]"], FreshInterpreterRunner())


def test_requiring_all_layers_grades_where_all_hold(problem, monkeypatch):
    monkeypatch.setenv("JUDGE_REQUIRE_ALL_LAYERS", "1")
    report = grade(problem, ACCEPTED, runner=shared_runner(), expected_cache=ExpectedCache())
    if os.geteuid() == 0:
        assert report.verdict == "accepted" and report.notes == []
    else:
        assert report.verdict == "internal_error"


def test_every_child_layer_is_applied_and_checked_from_one_table():
    from judge.processes.harden import CHILD

    assert tuple(CHILD) == layers.CHILD_LAYERS  # in the order a child applies them
