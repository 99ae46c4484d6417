"""The reference's results: computed once per problem version, kept on disk, recomputed when the
package changes or the stored file is damaged."""

import dataclasses
import shutil
import stat
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.grading.expected import ExpectedCache, ReferenceError_
from judge.packages.limits import Limits
from tests.judge.runners import Wrapping

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"


class Counting(Wrapping):
    """The shared runner, counting the children that trace a source (the reference's among them)."""

    def __init__(self):
        super().__init__()
        self.traced = []

    def run(self, request, limits):
        self.traced.append(request.get("source"))
        return self.inner.run(request, limits)


@pytest.fixture
def package(tmp_path):
    folder = tmp_path / "checkpoint_dot_policy"
    shutil.copytree(DOT, folder)
    return folder


def test_a_new_process_reuses_the_results_on_disk(tmp_path, package):
    problem = load_problem(package)
    first = Counting()
    expected = ExpectedCache(tmp_path / "cache").get(problem, problem.samples, first)
    assert first.traced == [problem.reference]
    [stored] = (tmp_path / "cache").iterdir()
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600  # the hidden inputs' salt is in there
    later = Counting()  # as if the worker had restarted: an empty memory, the same directory
    again = ExpectedCache(tmp_path / "cache").get(problem, problem.samples, later)
    assert later.traced == []
    assert again["salt"] == expected["salt"]
    assert (again["cases"]["sample-1"].value[0] == expected["cases"]["sample-1"].value[0]).all()


def test_grading_many_submissions_runs_the_reference_once(tmp_path, package):
    problem = load_problem(package)
    runner, cache = Counting(), ExpectedCache(tmp_path / "cache")
    sources = [p.read_text() for p in sorted((package / "submissions").glob("*/*.py"))][:4]
    for source in sources:
        grade(problem, source, runner=runner, expected_cache=cache, samples_only=True)
    assert runner.traced.count(problem.reference) == 1


def test_editing_the_package_recomputes(tmp_path, package):
    runner, cache = Counting(), ExpectedCache(tmp_path / "cache")
    problem = load_problem(package)
    cache.get(problem, problem.samples, runner)
    (package / "statement.md").write_text((package / "statement.md").read_text() + "\nOne more sentence.\n")
    edited = load_problem(package)
    cache.get(edited, edited.samples, runner)
    assert runner.traced.count(problem.reference) == 2
    assert len(list((tmp_path / "cache").iterdir())) == 2


def test_a_damaged_file_is_computed_again(tmp_path, package):
    problem = load_problem(package)
    runner = Counting()
    ExpectedCache(tmp_path / "cache").get(problem, problem.samples, runner)
    [stored] = (tmp_path / "cache").iterdir()
    stored.write_bytes(stored.read_bytes()[:100])
    assert ExpectedCache(tmp_path / "cache").get(problem, problem.samples, runner)["cases"]["sample-1"].value
    assert runner.traced.count(problem.reference) == 2


def test_an_unwritable_cache_directory_still_grades(tmp_path, package):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    problem = load_problem(package)
    with pytest.warns(RuntimeWarning, match="expected results not stored"):
        expected = ExpectedCache(blocked / "cache").get(problem, problem.samples, Counting())
    assert expected["cases"]["sample-1"].value


def test_a_failing_reference_is_told_as_the_references_failure_not_a_submissions(tmp_path, package):
    problem = load_problem(package)
    chatty = dataclasses.replace(
        problem, reference="print('x' * 4096)\n" + problem.reference, limits=Limits(output_kb=1)
    )
    with pytest.raises(ReferenceError_) as failed:
        ExpectedCache(tmp_path / "cache").get(chatty, chatty.samples, Counting())
    assert (
        str(failed.value) == "the reference of checkpoint_dot_policy failed: output_limit: it printed more than 1 KiB"
    )
    assert not (tmp_path / "cache").exists()  # nothing stored: the next grading tries again
