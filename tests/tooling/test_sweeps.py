"""What the long sweeps count as changed (tests/sweeps.py), on small repositories of known history:
the commits of the day before the last one, so that a landing whose last commit is docs only still
sweeps the code its earlier commits changed."""

import os
import subprocess

import pytest

from tests import sweeps

HOUR = 3600
LAST = 1_796_680_000  # the last commit's date (seconds); the others are placed before it


def commit(repo, path: str, seconds_before_last: int) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(f"{path} {seconds_before_last}\n")
    date = f"@{LAST - seconds_before_last} +0000"
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    run = {"cwd": repo, "env": env, "check": True, "capture_output": True}
    subprocess.run(["git", "add", path], **run)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", path], **run)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.setattr(sweeps, "ROOT", tmp_path)
    sweeps.changed_files.cache_clear()
    yield tmp_path
    sweeps.changed_files.cache_clear()


def test_a_landing_whose_last_commit_is_docs_still_counts_its_code(repo):
    commit(repo, "webplatform/old/views.py", 3 * 24 * HOUR)  # landed days before
    commit(repo, "webplatform/api/courses.py", 5 * HOUR)  # earlier in the same landing
    commit(repo, "docs/changelog.md", 0)  # the last commit, docs only
    assert sweeps.changed_files() == {"webplatform/api/courses.py", "docs/changelog.md"}
    assert sweeps.touched(["webplatform/api/"]) and not sweeps.touched(["webplatform/old/"])


def test_uncommitted_and_new_files_count_too(repo):
    commit(repo, "webplatform/old/views.py", 2 * 24 * HOUR)
    commit(repo, "README.md", 0)
    (repo / "webplatform/old/views.py").write_text("edited\n")
    (repo / "webplatform/new.py").write_text("new\n")
    assert sweeps.changed_files() == {"README.md", "webplatform/old/views.py", "webplatform/new.py"}


def test_a_history_younger_than_a_day_sweeps_everything(repo):
    commit(repo, "webplatform/api/courses.py", 2 * HOUR)
    commit(repo, "docs/changelog.md", 0)
    assert sweeps.changed_files() is None and sweeps.touched(["anything/"])
