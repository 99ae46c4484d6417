"""A label on another value: the verdict page marks the label's row in both residual tables, the
learner's and the reference's, and says under each which value of the learner's code is meant. Before,
both tables listed "value named 'hidden'" of the same type, and nothing told them apart."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from judge.data.report import Report
from judge.grading import labelled_value

from .test_pages import finish, submit

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
NAMES = ROOT / "problems" / "checkpoint_names"
ARGS = [
    {"kind": "argument", "what": w, "type": t, "bytes": b, "line": None, "dtype": "float32", "shape": s}
    for w, t, b, s in (("w1", "f32[8,16]", 512, [8, 16]), ("x", "f32[4,8]", 128, [4, 8]))
]
HIDDEN = {"kind": "named", "what": "hidden", "type": "f32[4,16]", "bytes": 256, "line": 7, "dtype": "float32"}


def _report() -> Report:
    """What the judge reports for label_on_product.py: the same rows on both sides, then marked."""
    report = Report.from_dict(
        {
            "problem": "checkpoint_names",
            "verdict": "policy_violation",
            "message": "policy_violation!",
            "residuals": [*ARGS, HIDDEN | {"shape": [4, 16]}],
            "reference_residuals": [*ARGS, HIDDEN | {"shape": [4, 16]}],
        }
    )
    learner = (NAMES / "submissions" / "policy_violation" / "label_on_product.py").read_text()
    labelled_value.mark_tables(report, (NAMES / "reference.py").read_text(), learner, "hidden")
    return report


def test_the_labelled_row_is_marked_in_both_tables_with_the_value_meant(learner_client, learner, dot_policy):
    submission = submit(learner, dot_policy)
    report = _report().to_dict()
    finish(submission, "policy_violation", **{k: report[k] for k in ("residuals", "reference_residuals")})
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    yours = html[html.index('id="residual-table"') : html.index('id="required-residual-table"')]
    required = html[html.index('id="required-residual-table"') :].split("</table>")[0]
    for table in (yours, required):
        marked = re.findall(r'<tr class="offending">(.*?)</tr>', table, re.S)
        assert len(marked) == 1 and "named &#x27;hidden&#x27;" in marked[0].replace("'", "&#x27;"), table
        assert "the tanh at line 8 of your code" in table and "the matrix product `x @ w1`" in table
        assert re.search(r'<tr class="why-row"><td colspan="\d">Why it is marked: ', table), table
    # the two tables no longer read the same
    assert "your label &#x27;hidden&#x27; is on" in yours and "the statement&#x27;s &#x27;hidden&#x27;" in required
