"""The ``arena`` client as ``make setup`` installs it (``.venv/bin/arena``), against the site as
``make run`` starts it (gunicorn, a Celery worker): log in with a token made by manage.py, fetch
checkpoint_dot_policy, submit the reference and a wrong-policy file, and read the verdicts and
the message the worker stored; then the same from Python, as a notebook would."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from devstack.processes import ROOT, manage

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ARENA = Path(sys.executable).parent / "arena"
PACKAGE = ROOT / "problems" / "checkpoint_dot_policy"
WRONG_POLICY = PACKAGE / "submissions" / "policy_violation" / "everything_saveable.py"


@pytest.fixture(scope="module")
def token(site) -> str:
    return manage(
        "create_api_token",
        "learner",
        "--name",
        "client test",
        env={**os.environ, "DATABASE_URL": f"sqlite:///{site.var / 'db.sqlite3'}"},
    )


@pytest.fixture
def home(tmp_path):
    """A user's home for the client: its own config folder and working directory, no ARENA_*."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    env.update({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "NO_COLOR": "1"})
    return tmp_path, env


def arena(home, *args: str, stdin: str = "", extra_env: dict | None = None) -> subprocess.CompletedProcess:
    cwd, env = home
    return subprocess.run(
        [str(ARENA), *args],
        cwd=cwd,
        env={**env, **(extra_env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=400,
    )


def submission_id(output: str) -> int:
    return int(output.split("The verdict page: ")[1].split("/submissions/")[1].strip("/\n "))


def test_the_client_logs_in_fetches_and_submits_from_a_terminal(site, token, home):
    login = arena(home, "login", site.url, stdin=token + "\n")
    assert login.returncode == 0 and "as learner" in login.stdout, login.stderr
    stored = home[0] / "config" / "arena" / "config.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600 and token in stored.read_text()

    problems = arena(home, "problems")
    assert problems.returncode == 0 and "checkpoint_dot_policy" in problems.stdout

    show = arena(home, "show", "checkpoint_dot_policy")
    assert show.returncode == 0 and "Signature: checkpoint_dot_policy(" in show.stdout
    assert (home[0] / "checkpoint_dot_policy.py").read_text() == (PACKAGE / "starter.py").read_text()

    accepted = arena(home, "submit", "checkpoint_dot_policy", str(PACKAGE / "reference.py"), "--wait")
    print(accepted.stdout)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert accepted.stdout.splitlines()[0].endswith(": accepted")
    assert site.submission(submission_id(accepted.stdout))["verdict"] == "accepted"

    rejected = arena(home, "submit", "checkpoint_dot_policy", str(WRONG_POLICY), "--wait")
    print(rejected.stdout)
    assert rejected.returncode == 1 and rejected.stdout.splitlines()[0].endswith(": policy_violation")
    row = site.submission(submission_id(rejected.stdout))
    assert row["verdict"] == "policy_violation" and row["message"] in rejected.stdout  # the site's words, whole
    assert "!!" in rejected.stdout and "What the required policy keeps:" in rejected.stdout

    starter = arena(home, "run", "checkpoint_dot_policy", "checkpoint_dot_policy.py")
    assert starter.returncode == 1 and "(sample cases): runtime_error" in starter.stdout

    queued = arena(home, "submit", "checkpoint_dot_policy", str(PACKAGE / "reference.py"))
    assert queued.returncode == 3 and "arena status" in queued.stdout


def test_the_client_inspects_before_submitting(site, token, home):
    assert arena(home, "login", site.url, stdin=token).returncode == 0
    looked = arena(home, "inspect", "checkpoint_dot_policy", str(PACKAGE / "reference.py"))
    print(looked.stdout)
    assert looked.returncode == 0, looked.stdout + looked.stderr
    lines = looked.stdout.splitlines()
    assert lines[0].endswith("(inspection, first sample case): inspected (no verdict)")
    assert "Saved for the backward pass: 3584 bytes." in looked.stdout
    assert sum("` (@)" in line for line in lines) == 2  # the two products, as written and "!!" not in looked.stdout
    assert "policy dots_with_no_batch_dims_saveable" in looked.stdout
    assert "peak" in looked.stdout and "the backward pass recomputes" in looked.stdout
    inspection = site.submission(
        int(looked.stdout.split("The result page: ")[1].split("/submissions/")[1].strip("/\n "))
    )
    assert inspection["kind"] == "inspect" and inspection["verdict"] == ""  # no verdict, nothing ranked
    wrong = arena(home, "inspect", "checkpoint_dot_policy", str(WRONG_POLICY))
    assert wrong.returncode == 0 and "policy everything_saveable" in wrong.stdout


def test_the_environment_takes_precedence_and_refusals_exit_2(site, token, home):
    assert arena(home, "login", site.url, stdin=token).returncode == 0
    wrong = arena(home, "whoami", extra_env={"ARENA_TOKEN": "arena_not-a-real-token"})
    assert wrong.returncode == 2 and "not valid" in wrong.stderr
    assert arena(home, "whoami").stdout.startswith("learner on ")
    unknown = arena(home, "show", "no_such_problem")
    assert unknown.returncode == 2 and "no published problem 'no_such_problem'" in unknown.stderr
    nowhere = arena(home, "whoami", extra_env={"ARENA_URL": "http://127.0.0.1:9"})
    assert nowhere.returncode == 2 and "Could not reach" in nowhere.stderr


NOTEBOOK_CELL = """
import jax
import jax.numpy as jnp
import arena

def mlp(w1, w2, x):
    hidden = jax.nn.relu(x @ w1)
    return jnp.sum((hidden @ w2) ** 2)

def my_attempt(w1, w2, x):
    return jax.checkpoint(mlp, policy=jax.checkpoint_policies.everything_saveable)(w1, w2, x)

result = arena.submit("checkpoint_dot_policy", my_attempt)
print(repr(result))
print(result._repr_html_())
"""


def test_from_python_a_function_is_submitted_and_its_result_displays_in_a_notebook(site, token, home):
    cwd, env = home
    (cwd / "cell.py").write_text(NOTEBOOK_CELL)  # a notebook keeps its cells' source as a file would
    done = subprocess.run(
        [sys.executable, "cell.py"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**env, "ARENA_URL": site.url, "ARENA_TOKEN": token},
        timeout=400,
    )
    assert done.returncode == 0, done.stderr
    first, html = done.stdout.split("\n", 1)
    assert first.endswith("(submit): policy_violation>")
    assert ">policy_violation</span>" in html and "Saved residuals" in html and "(relu)" in html
    assert "What the required policy keeps" in html and "<script" not in html
