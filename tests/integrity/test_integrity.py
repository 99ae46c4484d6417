"""The integrity corpus: programs that try to pass without doing what the judge verifies, and
legitimate programs the judge must not refuse (issue 10).

Each file under ``cases/<problem>/<verdict>/`` is graded on its problem of the bank, through the
public grading API and the warm zygote, and must get the verdict its folder names. Its docstring
says which check it attacks and how (or which legitimate idiom it stands for).
"""

from __future__ import annotations

import ast
import atexit
import functools
from functools import lru_cache
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.data import syntax
from judge.grading import trusted
from judge.grading.grader import CONTRADICTED
from judge.in_child import gate
from judge.runners.zygote_runner import shared_runner
from tests.integrity.child_runs import ChildRunsOnce
from tests.judge.runners import ForgedReport

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = Path(__file__).resolve().parent / "cases"
CASES = sorted(CASES_DIR.glob("*/*/*.py"))


@lru_cache(maxsize=None)
def problem(slug: str):
    return load_problem(ROOT / "problems" / slug)


def test_the_corpus_covers_every_class_of_the_issue():
    names = {path.stem for path in CASES}
    assert {
        "counter_list_tiny_cost",
        "wraps_combinator",
        "forged_dots_field",
        "decoy_behind_stop_gradient",
        "custom_jvp_rule",
        "token_nested_link",
        "whole_times_one",
        "whole_where_true",
        "threshold_271",
        "checkpoint_over_jit",
        "nested_same_policy",
        "jitted_step_in_checkpointed_scan",
        "named_block_jitted",
        "numpy_constant",
    } <= names


def test_the_corpus_covers_every_class_of_the_trusted_verdict_issue():
    """Issue 21's classes: a forged report (every case below, in the forged-report mode); labels and
    syntax (a label on copies of x or on the pre-activation, a dead iota beside a numpy table, a
    token nested checkpoint); costs not the program's (products spelled as ragged_dot, jit on the
    reference's own block or step, one checkpoint around everything); a legitimate custom_jvp; a
    trace switch. Hidden sizes in messages: tests/judge/test_hidden_cases.py."""
    names = {path.stem for path in CASES}
    assert {
        "labels_on_copies_of_x",
        "label_on_preactivation",
        "dead_arange_numpy_table",
        "token_nested_two_levels",
        "ragged_dot_two_levels",
        "jit_on_block",
        "jit_on_step",
        "whole_network_checkpoint",
        "custom_jvp_activation",
        "trace_switch_custom_vjp",
    } <= names


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(CASES_DIR)) for p in CASES])
def test_case_says_what_it_attacks(path):
    docstring = ast.get_docstring(syntax.parse(path.read_text()))
    assert docstring and ("Attacks:" in docstring or "Legitimate" in docstring), path


PAST_THE_GATE = "Graded past the gate"


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(CASES_DIR)) for p in CASES])
def test_case_gets_its_verdict(path, monkeypatch):
    """A case marked "Graded past the gate" attacks a check that the static gate now also
    covers: as sent it is ``forbidden``; past the gate the deeper check must still hold alone."""
    slug, expected = path.parts[-3], path.parts[-2]
    source = path.read_text()
    runner = runs_once(shared_runner())
    if PAST_THE_GATE in ast.get_docstring(syntax.parse(source)):
        sent = grade(problem(slug), source, runner=runner)
        assert sent.verdict == "forbidden", sent.message
        monkeypatch.setattr(gate, "check", lambda source: None)
    report = grade(problem(slug), source, runner=runner)
    assert report.verdict == expected, report.message


# Problems whose verdicts JAX 0.10.2's remat3 cannot give alike (tests/bank/test_bank_validates.py
# says why): their cases are graded under the default remat only.
REMAT3_BLIND = {"write_a_policy", "save_anything_except_these_names"}
# Where JAX 0.10.2's remat3 itself keeps other values, the trusted facts say so under it too.
REMAT3_VERDICTS = {
    # remat3 recomputes the product the inner checkpoint keeps (measured with the report believed too)
    "checkpoint_dot_policy/accepted/nested_same_policy.py": "policy_violation",
}
FORGED = [
    (path, remat)
    for path in CASES
    for remat in ("jax_remat", "remat3")
    if remat == "jax_remat" or path.parts[-3] not in REMAT3_BLIND
]


_ONCE: dict[int, ChildRunsOnce] = {}


def runs_once(runner) -> ChildRunsOnce:
    """``runner``, each of its child runs done once in this process (tests/integrity/child_runs.py):
    the plain and the forged gradings of a case, and every case's forged reference, share them."""
    return _ONCE.setdefault(id(runner), ChildRunsOnce(runner))


@functools.cache
def _inner(remat: str):
    from judge.runners.zygote_runner import ZygoteRunner

    if remat == "remat3":
        runner = ZygoteRunner(remat3="true")
        atexit.register(runner.close)
        return runner
    return ZygoteRunner(remat3="false") if shared_runner().remat3 else shared_runner()


@pytest.mark.parametrize("path,remat", FORGED, ids=[f"{p.relative_to(CASES_DIR)}-{r}" for p, r in FORGED])
def test_case_keeps_its_verdict_when_the_gate_is_escaped_and_the_report_forged(path, remat, monkeypatch):
    """Issue 21: assume the gate is broken and the child rewrote its report into the honest
    reference's, while the program the verifier runs is the submission's. Every attack keeps its
    verdict: acceptance rests on the verifier's run and the source alone; an accepted program whose
    forged report contradicts its verified one fails closed where a rule only the trace decides."""
    slug, expected = path.parts[-3], path.parts[-2]
    if remat == "remat3":
        expected = REMAT3_VERDICTS.get(str(path.relative_to(CASES_DIR)), expected)
    monkeypatch.setattr(gate, "check", lambda source: None)
    forged = ForgedReport(problem(slug).reference, runs_once(_inner(remat)))
    report = grade(problem(slug), path.read_text(), runner=forged)
    assert forged.forged or report.verdict in ("compile_error", "runtime_error"), "nothing was forged"
    if expected == "accepted" and CONTRADICTED in report.notes and trusted.unverified(problem(slug)):
        # The forged report contradicts the verified program, and a rule of this problem only the
        # trace decides: acceptance cannot rest on it, so the verdict fails closed, saying why.
        assert report.verdict == "policy_violation", report.message
        assert report.cause.startswith("The judge could not verify your checkpoint structure"), report.message
        return
    assert report.verdict == expected, report.message


def test_the_entry_point_runs_once_per_case():
    """The submission prints a line each time its entry point is called: one per case shape. Its
    source writes a custom_vjp it never runs, which the parent refuses by reading the source."""
    path = CASES_DIR / "checkpoint_dot_policy" / "policy_violation" / "counter_exports_custom_vjp.py"
    report = grade(problem("checkpoint_dot_policy"), path.read_text(), samples_only=True)
    assert report.verdict == "policy_violation", report.message
    assert "hand-written custom_vjp" in report.cause
    calls = [line for line in report.stdout.splitlines() if line.startswith("entry point called")]
    assert calls == ["entry point called for (8, 16)", "entry point called for (4, 4)"]


def test_a_device_residual_under_the_required_offloading_policy_is_refused_for_its_memory():
    """The required policy is named and encloses everything; only where the products are kept
    tells it apart. The message says first which checkpoint kept them, then where each is kept."""
    path = CASES_DIR / "offload_dots_to_host" / "policy_violation" / "offload_inside_device_keeper.py"
    report = grade(problem("offload_dots_to_host"), path.read_text(), samples_only=True)
    assert report.verdict == "policy_violation"
    assert report.cause == (
        "In your program, f32[8,16] from `x @ w1` (@) at line 18 is kept by the jax.checkpoint "
        "(line 24) with dots_with_no_batch_dims_saveable, not by one with "
        "policy=offload_dot_with_no_batch_dims('device', 'pinned_host')."
    )
    assert report.message.startswith("case sample-1: " + report.cause)
    differences = report.message.split("Differences: ")[1]
    assert differences.startswith(
        "f32[8,16] from `x @ w1` (@) at line 18: saved on the device; "
        "the offload_dot_with_no_batch_dims policy offloads it to pinned_host"
    )
    assert "`hidden @ w2` (@) at line 19: saved on the device" in differences
    assert [r.memory for r in report.residuals if r.offending] == ["device", "device"]
    assert report.host_residual_bytes == 0 and report.reference_host_residual_bytes == 640
