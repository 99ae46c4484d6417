"""Cached figures are served only while the grading state they were computed from is current:
a verdict, a rejudge, a new problem version or a deleted learner makes the next read compute
again."""

import threading
import time

import pytest
from django.contrib.auth import get_user_model

from webplatform.catalog.models import Problem
from webplatform.catalog.services import sync_problems
from webplatform.core import freshness
from webplatform.submissions import services

from .helpers import DOT_POLICY, copy_package
from .scenario import graded, regrade

pytestmark = pytest.mark.django_db


class Counter:
    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.calls


def test_a_value_is_computed_once_until_the_grading_state_moves(learner, dot_policy):
    compute = Counter()
    assert freshness.cached("figure", compute) == freshness.cached("figure", compute) == 1
    assert freshness.cached("another figure", compute) == 2  # names are separate values
    graded(learner, dot_policy, "accepted")  # a new verdict
    assert freshness.cached("figure", compute) == 3


@pytest.fixture
def stamped(learner, other_learner, tmp_path):
    """A problem of its own (so that a test may publish a new version) with two accepted submissions."""
    folder = copy_package(DOT_POLICY, tmp_path, "stamped")
    sync_problems(root=tmp_path)
    problem = Problem.objects.get(slug="stamped")
    return {
        "folder": folder,
        "root": tmp_path,
        "mine": graded(learner, problem, "accepted"),
        "theirs": graded(other_learner, problem, "accepted"),
    }


def moves_the_state(change) -> bool:
    before = freshness.grading_state()
    change()
    return freshness.grading_state() != before


def test_a_rejudge_moves_the_state_and_so_does_its_new_verdict(stamped):
    assert moves_the_state(lambda: services.rejudge_submission(submission_id=stamped["mine"].pk))
    assert moves_the_state(lambda: regrade(stamped["mine"], "wrong_answer"))


def test_a_new_problem_version_moves_the_state(stamped):
    starter = stamped["folder"] / "starter.py"
    starter.write_text(starter.read_text() + "# changed\n")
    assert moves_the_state(lambda: sync_problems(root=stamped["root"]))


def test_deleting_a_learner_and_their_submissions_moves_the_state(stamped, other_learner):
    assert moves_the_state(lambda: get_user_model().objects.filter(pk=other_learner.pk).delete())


def test_a_value_older_than_the_maximum_age_is_computed_again(monkeypatch):
    compute = Counter()
    freshness.cached("aging", compute, state="s")
    monkeypatch.setattr(freshness, "MAX_AGE_S", 0)
    time.sleep(0.01)
    assert freshness.cached("aging", compute, state="s") == 2


def test_threads_asking_at_once_share_one_computation():
    started, release = threading.Event(), threading.Event()
    calls = []

    def slow():
        calls.append(1)
        started.set()
        release.wait(5)
        return "done"

    results = []
    threads = [
        threading.Thread(target=lambda: results.append(freshness.cached("slow", slow, state="s"))) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    assert started.wait(5)
    time.sleep(0.05)  # the other three are waiting for the first
    release.set()
    for thread in threads:
        thread.join(5)
    assert results == ["done"] * 4 and len(calls) == 1


def test_values_of_an_older_state_are_dropped_when_a_newer_one_is_stored():
    freshness.cached("figure", lambda: 1, state="old")
    freshness.cached("figure", lambda: 2, state="new")
    assert freshness.cached("figure", lambda: 3, state="old") == 3  # not kept: computed again
