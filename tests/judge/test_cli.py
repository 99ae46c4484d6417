"""The command line, as people run it: ``python -m judge ...``. The entry point itself runs as a
process of its own once (``test_python_dash_m_judge_exits_2_with_the_error_on_stderr``); the other
tests call the same ``main`` in this process, which spares each call an interpreter that imports
JAX and starts a zygote of its own (about 3 CPU-seconds each) and changes nothing they read."""

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOT = ROOT / "problems" / "checkpoint_dot_policy"


def judge(*args, check=True) -> subprocess.CompletedProcess:
    """``python -m judge ARGS``, run by its ``main`` here: its exit status, what it printed on each stream."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([str(a) for a in args])
        except SystemExit as exc:  # as the interpreter ends on it: a message goes to stderr, status 1
            status = exc.code if isinstance(exc.code, int) else 1
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
    result = subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def broken_copy(tmp_path) -> Path:
    """DOT with one submission of each verdict a check needs, for a test to break: each packaged
    submission costs `validate` a grading, and the test is about the one it breaks."""
    import shutil

    copy = tmp_path / "checkpoint_dot_policy"
    shutil.copytree(DOT, copy)
    keep = {"accepted/decorator.py", "policy_violation/no_checkpoint.py", "policy_violation/no_policy.py"}
    for path in (copy / "submissions").glob("*/*.py"):
        if f"{path.parent.name}/{path.name}" not in keep:
            path.unlink()
    return copy


def test_grade_json_gives_one_object_per_submission_with_the_documented_fields():
    subs = [DOT / "submissions/accepted/decorator.py", DOT / "submissions/policy_violation/no_checkpoint.py"]
    out = judge("grade", DOT, *subs, "--json").stdout.strip().splitlines()
    assert len(out) == 2
    first, second = (json.loads(line) for line in out)
    for report in (first, second):
        assert {"submission", "problem", "verdict", "message", "cases", "residuals", "residual_bytes"} <= set(report)
        assert report["problem"] == "checkpoint_dot_policy"
        for case in report["cases"]:
            assert {"name", "verdict", "max_error"} <= set(case)
        for row in report["residuals"]:
            assert {"dtype", "shape", "bytes", "kind", "what", "line"} <= set(row)
    assert first["verdict"] == "accepted" and first["submission"].endswith("decorator.py")
    assert second["verdict"] == "policy_violation" and "relu" in second["message"]


def test_grade_text_marks_offending_rows():
    text = judge("grade", DOT, DOT / "submissions/policy_violation/no_checkpoint.py").stdout
    assert "policy_violation" in text
    table = text.split("Saved residuals")[1].splitlines()
    relu_row = next(line for line in table if "jax.nn.relu(x @ w1)` (relu)" in line)
    assert relu_row.startswith("!!") and "your code saved it" in relu_row
    arg_row = next(line for line in table if "argument w1 (an input, kept)" in line)
    assert not arg_row.startswith("!!")


def test_validate_passes_on_a_good_problem_and_fails_when_a_verdict_is_misfiled(tmp_path, monkeypatch):
    import shutil

    from judge import validate
    from judge.grading.grader import default_runner
    from tests.grading_cache import graded_as_the_bank

    def as_the_bank(problem, source, runner=None):
        """The packaged problem's files are the bank's: its grading of each, read (the key holds
        the judge's code, the package, the source and the remat), not a grading again."""
        assert runner is default_runner()
        return graded_as_the_bank(problem, source)

    monkeypatch.setattr(validate, "grade", as_the_bank)
    table = judge("validate", DOT).stdout
    assert "checkpoint_dot_policy: ok" in table
    # each wrong submission's row says what its learner reads first: the cause, never JAX's own text
    row = next(line for line in table.splitlines() if "runtime_error/string_policy.py" in line)
    assert "Your code calls a string as a function (line 7)" in row and "case sample" not in table
    broken = broken_copy(tmp_path)
    shutil.move(broken / "submissions/policy_violation/no_policy.py", broken / "submissions/accepted/no_policy.py")
    result = judge("validate", broken, check=False)
    assert result.returncode == 1
    assert "FAIL  submissions/accepted/no_policy.py" in result.stdout


def test_validate_refuses_a_package_without_accepted_submissions(tmp_path):
    import shutil

    broken = broken_copy(tmp_path)
    shutil.rmtree(broken / "submissions/accepted")
    result = judge("validate", broken, check=False)
    assert result.returncode == 1 and "no packaged submission in submissions/accepted/" in result.stdout


def test_validate_reports_a_reference_that_fails(tmp_path):
    broken = broken_copy(tmp_path)
    (broken / "reference.py").write_text("def checkpoint_dot_policy(w1, w2, x):\n    raise RuntimeError('oops')\n")
    result = judge("validate", broken, check=False)
    assert result.returncode == 1
    assert "internal_error" in result.stdout and "the reference of checkpoint_dot_policy failed" in result.stdout


def test_python_dash_m_judge_exits_2_with_the_error_on_stderr():
    """A broken problem folder, through the entry point people type: a clear error, status 2."""
    result = subprocess.run(
        [sys.executable, "-m", "judge", "grade", str(ROOT / "problems"), str(DOT / "reference.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 2 and "problem.toml" in result.stderr and result.stdout == ""


def test_inspect_lists_residuals_as_json_and_prints_programs(tmp_path):
    file = tmp_path / "mine.py"
    file.write_text("import jax\nimport jax.numpy as jnp\n\ndef f(W, x):\n    return jnp.sum(jnp.sin(jnp.dot(W, x)))\n")
    data = json.loads(judge("inspect", f"{file}:f", "f32[5,4]", "f32[4]", "--json").stdout)
    kinds = sorted((r["kind"], r["what"], r["type"]) for r in data["residuals"])
    assert kinds == [("argument", "W", "f32[5,4]"), ("argument", "x", "f32[4]"), ("primitive", "cos", "f32[5]")]
    assert data["residual_bytes"] == 80 + 16 + 20
    text = judge("inspect", f"{file}:f", "f32[5,4]", "f32[4]", "--fwd-bwd").stdout
    assert "output of cos" in text and "forward (saves residuals)" in text and "backward (uses them)" in text


def test_inspect_reports_a_bad_spec():
    result = judge("inspect", f"{DOT / 'reference.py'}:checkpoint_dot_policy", "f32[a,b]", check=False)
    assert result.returncode != 0 and "concrete sizes" in result.stderr


def test_doctor_lists_every_layer_and_says_whether_it_holds():
    import os

    from judge.sandbox import layers

    result = judge("doctor", check=False)
    for name in layers.ALL_LAYERS:
        assert f"  {name} " in result.stdout
    data = json.loads(judge("doctor", "--json", check=False).stdout)
    assert list(data["layers"]) == list(layers.ALL_LAYERS)
    if os.geteuid() == 0:
        assert result.returncode == 0 and "every layer is active." in result.stdout
        assert all(state["ok"] for state in data["layers"].values())
    else:
        assert result.returncode == 1 and "MISSING" in result.stdout


def test_grade_refuses_forbidden_code_with_the_line(tmp_path):
    forbidden = tmp_path / "sneaky.py"
    forbidden.write_text("import jax\n\n\ndef checkpoint_dot_policy(w1, w2, x):\n    return eval('w1.sum()')\n")
    out = json.loads(judge("grade", DOT, forbidden, "--json").stdout)
    assert out["verdict"] == "forbidden"
    assert out["message"] == "line 5: `eval` is not allowed: submissions cannot run code from strings or files"


def test_bench_json_gives_the_documented_fields():
    out = judge("bench", DOT, "--json", "--runs", "2", "--cold-runs", "1", "--throughput-runs", "2").stdout
    [line] = out.strip().splitlines()
    figures = json.loads(line)
    assert {
        "problem",
        "warm_p50_s",
        "warm_p95_s",
        "warm_new_p50_s",
        "cold_p50_s",
        "speedup",
        "throughput_per_min",
    } <= set(figures)
    assert figures["problem"] == "checkpoint_dot_policy" and figures["all_accepted"] is True
    assert figures["warm_p50_s"] > 0 and figures["warm_new_p50_s"] > 0 and figures["cold_p50_s"] > 0
    assert figures["throughput_per_min"] > 0
    assert figures["speedup"] == pytest.approx(figures["cold_p50_s"] / figures["warm_p50_s"], rel=0.02)


def test_doctor_reports_a_sandbox_that_would_not_start_instead_of_crashing(monkeypatch, capsys):
    """As when a sandboxed child cannot read the interpreter (a root worker without the minimal
    root, its interpreter under a directory only root may enter): the zygote's probe fails, and
    the doctor says so, with the reason, as text and as JSON, and exits 2."""
    from judge import cli
    from judge.runners.zygote_runner import ZygoteUnavailable

    class Broken:
        name = "warm zygote"

        def layers(self):
            raise ZygoteUnavailable(
                "a sample grading fails inside the sandbox: PermissionError: [Errno 13] "
                "Permission denied: '/root/.pyenv/versions/3.11.7/lib/python3.11'"
            )

    monkeypatch.setattr(cli, "_runner", Broken)
    assert cli.main(["doctor"]) == 2
    out = capsys.readouterr().out
    assert "the sandbox could not be started, so no layer could be checked" in out
    assert "Permission denied: '/root/.pyenv" in out and "Traceback" not in out
    assert cli.main(["doctor", "--json"]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["layers"] == {} and data["runner"] is None and "ZygoteUnavailable" in data["error"]
