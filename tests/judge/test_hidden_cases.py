"""A hidden case's message is made from trusted facts with its sizes left out (issue 21, item 6):
no array type, shape, byte count or step count of a hidden case reaches the learner, whatever the
submission's own process wrote."""

import re
from pathlib import Path

import pytest

from judge import grade, load_problem

ROOT = Path(__file__).resolve().parents[2]
WRONG = [
    p
    for slug in ("checkpoint_dot_policy", "scan_over_layers", "attention_keep_qkv", "offload_some_names")
    for p in sorted((ROOT / "problems" / slug / "submissions" / "policy_violation").glob("*.py"))
]


@pytest.mark.parametrize("path", WRONG, ids=[f"{p.parts[-4]}/{p.stem}" for p in WRONG])
def test_a_hidden_cases_message_tells_no_size(path):
    report = grade(load_problem(path.parents[2]), path.read_text())
    assert report.verdict == "policy_violation"
    hidden = [c for c in report.cases if not c.sample and not c.skipped]
    assert hidden
    for case in hidden:
        words = re.sub(r"line \d+", "line", case.message)
        numbers = re.findall(r"(?<![\w.'])\d+(?![\w.'])", words)  # not in a name such as 'h2'
        assert case.message and not numbers and not re.search(r"\[\d", words), (case.name, case.message)
