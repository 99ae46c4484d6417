"""Refusals a learner reads as they are: a label that nearly spells the policy's name is told as
that label, quoted where it is written; an offloading policy's lists are told by the names in the
wrong list; every line outside the checkpoint that must move in is named."""

from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.data import verdicts
from judge.words.names import near_misses

ROOT = Path(__file__).resolve().parents[2]


def _graded(slug: str, relative: str):
    problem = load_problem(ROOT / "problems" / slug)
    report = grade(problem, (problem.path / "submissions" / relative).read_text())
    assert report.verdict == verdicts.POLICY_VIOLATION, report.message
    return report


@pytest.mark.parametrize(
    "slug, relative, pairs",
    [
        (
            "llama_swiglu_mlp",
            "policy_violation/names_misspelled.py",
            [("gate_proj", 6, "gate", "x @ w_gate"), ("up_proj", 7, "up", "x @ w_up")],
        ),
        (
            "named_policies_at_scale",
            "policy_violation/labels_of_another_codebase.py",
            [
                ("q_proj", 19, "query_proj", "a @ wq"),
                ("k_proj", 20, "key_proj", "a @ wk"),
                ("v_proj", 21, "value_proj", "a @ wv"),
            ],
        ),
    ],
)
def test_a_label_near_the_policys_name_is_quoted_and_renamed(slug, relative, pairs):
    report = _graded(slug, relative)
    assert "names no value" not in report.cause, report.cause
    for label, line, name, value in pairs:
        # the learner's own call, at its line, against the name the policy saves
        assert f"'{label}' at line {line} (`" in report.cause and f'"{label}")' in report.cause, report.cause
        assert f"saves '{name}'" in report.cause, report.cause
        assert f'checkpoint_name({value}, "{name}") at line {line}' in report.advice, report.advice


@pytest.mark.parametrize(
    "relative, wrong",
    [
        (
            "policy_violation/lists_swapped.py",
            "your policy offloads `k` and `v`, which the required policy keeps on the device, and keeps `context` "
            "and `q` on the device, which it offloads to the host.",
        ),
        (
            "policy_violation/offload_every_name.py",
            "your policy offloads `k` and `v`, which the required policy keeps on the device.",
        ),
    ],
)
def test_an_offloading_policy_is_told_the_names_in_the_wrong_list(relative, wrong):
    report = _graded("long_context_offload", relative)
    assert report.cause.endswith(wrong), report.cause
    assert "offload_src" not in report.cause, report.cause  # not the two whole policies to compare
    assert report.advice.startswith(
        "Try: names_which_can_be_saved=['k', 'v'], names_which_can_be_offloaded=['context', 'q'] in your "
        "save_and_offload_only_these_names (line 29)"
    ), report.advice


def test_every_line_outside_the_checkpoint_is_named():
    report = _graded("named_policies_at_scale", "policy_violation/attention_only.py")
    assert 'line 33 (`up = checkpoint_name(rms_norm(h) @ w_up, "mlp_up")`)' in report.cause, report.cause
    assert "line 34 (`return h + checkpoint_name(jax.nn.gelu(up) @ w_down" in report.cause, report.cause
    assert report.advice == "Try: move those lines into the function you checkpoint.", report.advice


def test_only_a_near_spelling_counts_as_the_same_name():
    written = [("mlp_up", 3, False, "x @ w"), ("out_proj", 4, False, "y @ w"), ("h1", 5, False, "z")]
    assert near_misses(written, ["query_proj", "up", "h2"]) == []
    written = [("gate_proj", 6, False, "x @ w_gate"), ("gate_proj_2", 7, False, "x @ w2")]
    assert near_misses(written, ["gate"]) == [("gate_proj", 6, "x @ w_gate", "gate")]  # each name matched once
