"""The sandbox of a judge that does not run as root (a deployed worker as an unprivileged user):
each child gets a user namespace and a PID namespace of its own, so namespaces, the minimal root
and the isolation a uid of its own gives still hold.

It needs an interpreter with the project's packages that the unprivileged user may execute (this
repository's .venv usually lives under /root, which no other user may enter):
``JUDGE_UNPRIVILEGED_PYTHON=/path/to/python``, run as ``nobody``. The hostile corpus runs the same
way (``tests/hostile``, as that user, from a copy of the repository it may write to)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.sandbox import layers

ROOT = Path(__file__).resolve().parents[2]
USER = "nobody"


def as_user(python: str, *args: str, cwd: Path = ROOT, timeout: float = 600) -> subprocess.CompletedProcess:
    entry = pwd.getpwnam(USER)
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "JUDGE_CACHE_DIR": f"/tmp/judge-cache-{USER}-{os.getpid()}"}
    return subprocess.run(
        ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", python, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def python():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv, to start the judge as an unprivileged user")
    candidate = os.environ.get("JUDGE_UNPRIVILEGED_PYTHON", sys.executable)
    # As the judge starts its zygote: the interpreter executed again by that user.
    probe = as_user(
        candidate,
        "-c",
        "import jax, judge, subprocess, sys; subprocess.run([sys.executable, '-I', '-c', 'import jax'], check=True)",
        timeout=120,
    )
    if probe.returncode != 0:
        pytest.skip(
            f"{USER} cannot run {candidate} with the project's packages "
            f"({probe.stderr.strip().splitlines()[-1:] or probe.returncode}); "
            f"set JUDGE_UNPRIVILEGED_PYTHON to an interpreter it may execute"
        )
    return candidate


def test_every_layer_holds_for_a_judge_without_root(python):
    result = as_user(python, "-m", "judge", "doctor", "--json")
    data = json.loads(result.stdout)
    assert list(data["layers"]) == list(layers.ALL_LAYERS)
    missing = {name: state["detail"] for name, state in data["layers"].items() if not state["ok"]}
    assert missing == {} and result.returncode == 0


def test_a_judge_without_root_grades_the_bank_s_packaged_submissions_right(python):
    result = as_user(python, "-m", "judge", "validate", str(ROOT / "problems" / "checkpoint_dot_policy"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
