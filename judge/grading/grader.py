"""``grade(problem, source)``: from a submission's source to a verdict with its evidence.

First the static gate (``judge.in_child.gate``) reads the source; then the submission's child traces it
and the verifier computes its numbers where no submitted code runs (``judge.grading.pipeline``). The
reference goes through the same pipeline once per package version (``judge.grading.expected``); the
submission is checked against it case by case: values and gradients (on the case's inputs and
on hidden ones), saved residuals, checkpoint structure.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

import numpy as np

from .. import words
from ..data import saved_values, verdicts
from ..data.evidence import DEVICE
from ..data.messages import TracedCase
from ..data.report import CaseRow, Report
from ..packages.package import Problem
from ..runners.boundary import Runner
from ..source import Source
from . import (
    compare,
    labelled_value,
    other_problems,
    rules,
    runtime_hints,
    source_reading,
    trusted,
    wrong_answers,
)
from .expected import ExpectedCache, ReferenceError_, default_directory
from .graded_cases import run as run_pipeline
from .learner_terms import by_value, in_terms, missing_in_terms
from .pipeline import admit

__all__ = ["grade", "Report", "ExpectedCache", "ReferenceError_", "default_runner", "EXPECTED"]

HIDDEN = "on hidden inputs of the same shapes"


def default_runner() -> Runner:
    """The process-wide warm zygote runner (started on first use, restarted if it died)."""
    from ..runners.zygote_runner import shared_runner

    return shared_runner()


EXPECTED = ExpectedCache(default_directory())


def grade(
    problem: Problem,
    source: str,
    *,
    samples_only: bool = False,
    runner: Runner | None = None,
    fwd_bwd: bool = False,
    measure_cost: bool = False,
    expected_cache: ExpectedCache | None = None,
    scope: str | None = None,
) -> Report:
    """``scope``: whose programs this is (a learner, in the site), under which the compiled programs
    of earlier gradings are kept and loaded (``judge.grading.compiled_programs``); None keeps none."""
    started = time.monotonic()

    def finish(report: Report) -> Report:
        report.time_s = round(time.monotonic() - started, 4)
        return report

    runner = runner or default_runner()  # started on first use: a source the gate refuses starts nothing
    read = Source(source)  # the one reading of the text: the gate parses it, every reader below shares it
    refused = admit(read, runner)
    if refused:
        report = Report(problem.slug, *refused)
        # the gate's own words: only what it says of code that cannot run is a hint's (not a forbidden name)
        report.cause, report.advice = runtime_hints.compile_hint(report.message, read) or ("", "")
        return finish(report)
    notes = list(runner.notes())
    cases = problem.samples if samples_only else problem.cases
    try:
        expected = (expected_cache or EXPECTED).get(problem, cases, runner)
    except ReferenceError_ as exc:
        return finish(Report(problem.slug, verdicts.INTERNAL_ERROR, str(exc), notes=notes))
    expected_outputs = {name: case.outputs for name, case in expected["cases"].items()}
    outcome = run_pipeline(
        problem,
        source,
        cases,
        runner,
        salt=expected["salt"],
        expected_outputs=expected_outputs,
        fwd_bwd=fwd_bwd,
        cost=measure_cost,
        scope=scope,
    )
    # What a child prints is shown only from a child that held no hidden case ("Run samples"): a
    # child whose code escaped the gate could print a hidden case's sizes while running a sample.
    shown = outcome.stdout if all(c.sample for c in cases) else ""
    report = Report(problem.slug, verdicts.ACCEPTED, "", stdout=shown, notes=notes)
    report.peak_limit_bytes = problem.cost_rules.max_peak_bytes
    if outcome.failure:
        report.verdict, report.message = outcome.failure
        report.cause, report.advice = runtime_hints.hint(report.message, None, "", read) or ("", "")  # our words
    else:
        facts = trusted.source_findings(source_reading.read(read, problem.entry), problem)
        _check_cases(problem, cases, outcome.cases, expected["cases"], report, read, facts)
    return finish(report)


def _check_cases(
    problem: Problem,
    cases,
    sent: list[TracedCase],
    expected: dict[str, TracedCase],
    report: Report,
    source: Source,
    from_source: list[trusted.Finding],
) -> None:
    by_name = {c.name: c for c in sent}
    wrong_told = None  # the first sample's wrong answer, in the learner's terms
    case_verdicts = []
    first_message = {}
    for case in cases:
        got = by_name.get(case.name)
        want = expected[case.name]
        row = CaseRow(case.name, case.sample, verdicts.ACCEPTED, "", None)
        if got is None or (got.error is not None and got.error.skipped):
            row.verdict, row.message = verdicts.RUNTIME_ERROR, "not run (an earlier case failed)"
            row.skipped = True
        elif got.error is not None:
            row.verdict, row.message = got.error.verdict, got.error.text()
            if row.verdict == verdicts.WRONG_ANSWER and case.sample and not wrong_told:
                wrong_told = wrong_answers.told_types(got.outputs, want.outputs)
            if not case.sample:  # the child's own words: on a hidden case they could tell its sizes
                row.message = HIDDEN_ERROR.get(row.verdict, verdicts.DESCRIPTIONS[row.verdict])
        else:
            # a figures-only case's values are not computed: the other cases compare them
            message, err = (None, float("nan")) if case.figures_only else _compare_numbers(problem, got, want)
            # a hidden case's error is the submission's to modulate (inside the tolerance too): not shown
            row.max_error = None if not np.isfinite(err) or not case.sample else err
            if message:
                row.verdict, row.message = (
                    verdicts.WRONG_ANSWER,
                    message if case.sample else compare.without_figures(message),
                )
                if case.sample and not wrong_told:
                    wrong_told = wrong_answers.told(got, want, problem.wrt, problem.rtol, problem.atol, case.name)
            else:
                _check_policy(problem, got, want, row, report, source, from_source)
        if not case.sample:
            row.message = hidden_wording(row.message)
        report.cases.append(row)
        if not row.skipped:
            case_verdicts.append(row.verdict)
            first_message.setdefault(row.verdict, f"case {case.name}: {row.message}")
    report.verdict = verdicts.worst(case_verdicts)
    if report.verdict == verdicts.WRONG_ANSWER:  # the samples first; a hidden case's inputs only, never its sizes
        report.cause, report.advice = wrong_told or (wrong_answers.HIDDEN_CAUSE, wrong_answers.HIDDEN_ADVICE)
    if report.verdict in (verdicts.RUNTIME_ERROR, verdicts.COMPILE_ERROR):  # the error the verdict is for
        _hint_first_error(cases, by_name, report, source)
    if report.verdict in (verdicts.RUNTIME_ERROR, verdicts.WRONG_ANSWER):  # what the source shows besides
        report.cause, report.advice = other_problems.told_with(report.cause, report.advice, source, problem)
    report.message = (
        first_message.get(report.verdict, "")
        if report.verdict != verdicts.ACCEPTED
        else f"all {len(cases)} case(s) passed: values, gradients, residuals and checkpoint structure"
    )


def _hint_first_error(cases, by_name: dict[str, TracedCase], report: Report, source: Source) -> None:
    """The cause and advice of the first sample case's error, where a hint knows it; where only hidden
    cases fail, the first hidden one's, in words that carry none of its sizes (its text is never shown)."""
    errors = [
        (case.sample, got.error.message, got.error.line, source.line(got.error.line))
        for case in cases
        if (got := by_name.get(case.name)) is not None
        and got.error is not None
        and not got.error.skipped
        and got.error.verdict == report.verdict
    ]
    found = runtime_hints.first_error(errors, source)
    if found is not None:
        report.cause, report.advice = found


def _compare_numbers(problem: Problem, got: TracedCase, want: TracedCase) -> tuple[str | None, float]:
    """Values and gradients on the case's inputs, then on the hidden inputs only the verifier saw."""
    message, err = compare.compare_outputs(got, want, problem.wrt, problem.rtol, problem.atol)
    if message:
        return message, err
    hidden = lambda case: replace(case, value=case.hidden_value, grads=case.hidden_grads)  # noqa: E731
    message, hidden_err = compare.compare_outputs(hidden(got), hidden(want), problem.wrt, problem.rtol, problem.atol)
    if message:
        return f"{HIDDEN}: {message}", hidden_err
    return None, max(err, hidden_err)


def _check_policy(
    problem: Problem,
    got: TracedCase,
    want: TracedCase,
    row: CaseRow,
    report: Report,
    source: Source,
    from_source: list[trusted.Finding],
) -> None:
    if got.contradicted:  # its report is not of the program that ran: the trusted facts decide alone
        findings = (
            from_source + trusted.value_findings(problem, got, want)[0] + trusted.cost_findings(problem, got, want)
        ) or trusted.unverified(problem)  # a rule only the trace decides fails closed
        if row.sample:  # a hidden case's figures would tell its sizes
            report.cost = report.cost or got.cost
        if CONTRADICTED not in report.notes:
            report.notes.append(CONTRADICTED)
        if findings:
            _trusted_violation(findings, row, report)
        return
    mine = rules.Saved([in_terms(r, source) for r in got.residuals], got.structure)
    valued, pairing = trusted.value_findings(problem, got, want, mine.residuals, source)
    findings = from_source + valued
    theirs = rules.Saved(want.residuals, want.structure)
    problems, rows, as_found = rules.check_residuals(mine, theirs, problem.residual_rules, problem.structure_rules)
    missing = missing_in_terms(as_found, got.structure, source)
    said = rules.structure_problems(got.structure, problem.structure_rules)
    keepers = rules.check_keepers(mine, problem.structure_rules)
    cost = []
    if got.cost is not None:
        if row.sample:  # the first sample stands for the program; a hidden case's figures would tell its sizes
            report.cost = report.cost or got.cost
        cost = rules.check_cost(got.cost, want.cost, got.structure, problem.cost_rules)
    problems += [p for _, p in said] + keepers + cost
    if not report.residuals and row.sample:  # the first inspected sample is the one shown
        report.residuals, report.missing_residuals = rows, missing
        if pairing is None and got.saved and want.saved:  # for the names only: no rule reads it here
            pairing = saved_values.pair(got.saved, want.saved)
        report.reference_residuals = by_value(
            missing_in_terms(want.residuals, got.structure, source), mine.residuals, pairing
        )
        # as the verifier counted; on the device and offloaded to the host apart
        report.residual_bytes = sum(r.bytes for r in got.residual_types if r.memory == DEVICE)
        report.host_residual_bytes = sum(r.bytes for r in got.residual_types if r.memory != DEVICE)
        report.reference_residual_bytes = sum(r.bytes for r in want.residuals if not r.offloaded)
        report.reference_host_residual_bytes = sum(r.bytes for r in want.residuals if r.offloaded)
        report.structure = got.structure
        report.programs = got.programs or {}
        report.reference_timeline = want.cost.timeline if want.cost is not None else None
        report.reference_peak_bytes = want.cost.peak_bytes if want.cost is not None else None
        relabelled = next((f.relabelled for f in valued if f.relabelled), "")
        if relabelled:  # the label's row, in both tables: which value carries it, which one should
            labelled_value.mark_tables(report, problem.reference, source, relabelled)
    if not problems:
        if findings:  # what the report of the trace does not show, the trusted side does
            _trusted_violation(findings, row, report)
        return
    decided = lambda found: sum(r.bytes for r in found if r.kind not in rules.UNDECIDED)  # noqa: E731
    found = words.cause(
        found=got.structure,
        rules=problem.structure_rules,
        reference=want.structure,
        said=said,
        rows=rows,
        missing=missing,
        mine_bytes=decided(mine.residuals),
        their_bytes=decided(want.residuals),
        source=source,
        keepers=keepers,
        cost=cost,
        form=words.form_of(problem),
    )
    already = set(rules.row_problems(rows, as_found)) | set(found.covers if found is not None else ())
    others = [p for p in problems if p not in already]
    row.verdict, row.message = verdicts.POLICY_VIOLATION, words.message(found, rows, missing, others)
    if not row.sample:  # what the trace says of a hidden case is not told: its sizes are in it
        row.message = _sentence("; ".join(f.hidden for f in findings) or HIDDEN_TRACE)
    if found is not None and not report.cause and row.sample:  # samples come first
        report.cause, report.advice = found.sentence, found.advice
    elif not report.cause and not row.sample:  # the samples passed: a hidden case's cause, without its sizes
        report.cause, report.advice = row.message, (findings[0].hidden_advice if findings else "") or HIDDEN_ADVICE


def _trusted_violation(findings: list[trusted.Finding], row: CaseRow, report: Report) -> None:
    """A policy_violation worded from the trusted facts alone (no sizes on a hidden case)."""
    words = [f.sentence if row.sample else f.hidden for f in findings]
    # the first finding is the cause, a sentence of its own; the others follow it
    row.verdict, row.message = (
        verdicts.POLICY_VIOLATION,
        " ".join([_sentence(words[0])] + ([_sentence("; ".join(words[1:]))] if words[1:] else [])),
    )
    if row.sample:  # what to try follows the cause, as in a message worded from the trace
        row.message += " " + (findings[0].advice or TRUSTED_ADVICE.get(findings[0].kind, TRUSTED_ADVICE["values"]))
    if not report.cause:
        first = findings[0]
        report.cause = _sentence(first.sentence if row.sample else first.hidden)
        report.advice = first.advice or TRUSTED_ADVICE.get(first.kind, TRUSTED_ADVICE["values"])
        if not row.sample:  # the samples passed: what differs depends on the inputs' sizes
            report.advice = first.hidden_advice or HIDDEN_ADVICE


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


CONTRADICTED = (
    "the report of your program's trace does not match the program the judge ran, so the judge "
    "decided on what it measured itself"
)
HIDDEN_TRACE = "on this hidden case your checkpointing differs from what this problem requires, as on the samples"
HIDDEN_ERROR = {
    verdicts.RUNTIME_ERROR: "your code raised an error on this hidden case (its message is not shown: it could "
    "tell the case's sizes); try your function on inputs of other sizes",
    verdicts.COMPILE_ERROR: "your code could not be traced on this hidden case",
    verdicts.WRONG_ANSWER: "your output has another structure, shape or dtype than required on this hidden case",
}
# What to try when the samples pass and a hidden case does not: the difference depends on sizes.
HIDDEN_ADVICE = (
    "Try: your code passes the sample cases, so look for what depends on the inputs' sizes (a "
    "condition on a shape, an axis left out): call your function on larger inputs than the samples' "
    "and Inspect what it keeps."
)
# What to try, by the kind of a trusted finding (``trusted.Finding.kind``) that has no advice of its own
# (no_checkpoint has: ``words.no_checkpoint_advice``, which knows whether a policy is required).
TRUSTED_ADVICE = {
    "backward_rule": "Try: remove the hand-written derivative rule and wrap the plain function in jax.checkpoint "
    "with the required policy; JAX then derives the backward pass and the policy decides what it "
    "saves.",
    "policy": "Try: pass the policy this problem names, written as jax.checkpoint_policies.<name>, as policy=.",
    "values": "Try: put the whole computation the statement names inside one jax.checkpoint with the required "
    "policy, and save nothing by other means; Inspect shows what your code keeps.",
    "limit": "Try: checkpoint more of the computation so that fewer values are kept for the backward pass.",
    "cost": "Try: Inspect your program to see where its step peaks, and checkpoint so that fewer values are "
    "alive together there.",
}


def hidden_wording(message: str) -> str:
    """A hidden case's message, without its sizes: array types, shapes, indices and byte counts
    would tell the case's dimensions, which the learner is not shown."""
    message = _TYPE.sub(lambda m: f"{m.group(1)}[…]", message)
    message = _TUPLE.sub("(…)", message)
    return _BYTES.sub("… bytes", message)


_TYPE = re.compile(r"\b([a-z]+\d*)\[[\d, ]*\]")
_TUPLE = re.compile(r"\(\d+(?:, ?\d+)*,?\)")
_BYTES = re.compile(r"\b\d+ bytes")
