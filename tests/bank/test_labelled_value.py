"""A label on another value than the one the statement names: the cause says which value of the
learner's code carries it and which one should (before: "the label sits on another value", and two
residual tables that read the same), and the label's row is marked in both tables."""

import pytest

from tests.bank.test_bank_validates import REMATS, graded


@pytest.mark.parametrize("remat", REMATS)
def test_the_label_on_the_product_is_told_as_the_product_and_the_tanh_is_named_in_both_tables(remat):
    report = graded("checkpoint_names", remat)["submissions/policy_violation/label_on_product.py"][1]
    assert "is on the matrix product `x @ w1`" in report.cause, report.cause
    assert "the tanh, which your code computes at line 8 (`hidden = jnp.tanh(pre)`)" in report.cause
    assert 'checkpoint_name(jnp.tanh(pre), "hidden")' in report.advice, report.advice
    for rows in (report.residuals, report.reference_residuals):
        marked = [r for r in rows if getattr(r, "offending", False)]
        assert [(r.kind, r.what) for r in marked] == [("named", "hidden")], rows
        assert "the tanh at line 8 of your code" in marked[0].reason, marked[0].reason
    # the two tables read differently where they differ
    assert report.residuals[-1].reason != report.reference_residuals[-1].reason
