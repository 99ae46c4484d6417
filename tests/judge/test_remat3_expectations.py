"""A package says which verdicts differ under JAX_REMAT3=true, and why (``[remat3]``); the checks
themselves are the same under both remats, and the default remat's expectations are the folders'."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge import load_problem
from judge.packages.package_reader import PackageError
from judge.validate import steps

ROOT = Path(__file__).resolve().parents[2]


def expected(slug: str) -> dict:
    problem = load_problem(ROOT / "problems" / slug)
    return {step.name(problem): step.expected for step in steps(problem)}


def test_the_folders_verdicts_hold_under_the_default_remat(monkeypatch):
    monkeypatch.delenv("JAX_REMAT3", raising=False)
    found = expected("write_a_policy")
    assert found["submissions/policy_violation/never.py"] == "policy_violation"
    assert found["submissions/runtime_error/returns_string.py"] == "runtime_error"


def test_under_remat3_the_package_says_which_verdicts_differ(monkeypatch):
    monkeypatch.setenv("JAX_REMAT3", "true")
    found = expected("write_a_policy")
    assert found["submissions/policy_violation/never.py"] == "accepted"
    assert found["submissions/policy_violation/library_dots.py"] == "policy_violation"  # not listed: its folder's
    assert load_problem(ROOT / "problems" / "write_a_policy").remat3_reason.startswith("Under JAX_REMAT3=true")
    # prevent_cse is read from the source (issue 21): the problem remat3 blinded is judged alike now
    assert expected("prevent_cse_in_scan")["reference.py"] == "accepted"
    assert not load_problem(ROOT / "problems" / "prevent_cse_in_scan").remat3_reason


@pytest.mark.parametrize(
    "table, error",
    [
        (
            '[remat3]\nexpected = { "submissions/accepted/nope.py" = "accepted" }\nreason = "r"\n',
            "is not the reference",
        ),
        ('[remat3]\nexpected = { "reference.py" = "policy_violation" }\n', "say why"),
        ('[remat3]\nexpected = { "reference.py" = "fine" }\nreason = "r"\n', "file = verdict"),
    ],
    ids=["unknown file", "no reason", "not a verdict"],
)
def test_a_remat3_table_that_does_not_fit_the_package_is_refused(tmp_path, table, error):
    folder = shutil.copytree(ROOT / "problems" / "checkpoint_names", tmp_path / "checkpoint_names")
    (folder / "problem.toml").write_text((folder / "problem.toml").read_text() + "\n" + table)
    with pytest.raises(PackageError, match=error):
        load_problem(folder)
