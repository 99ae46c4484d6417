"""Course statistics by cause: every failed attempt counted under the first sentence of its cause,
as the real judge words it, with the learners behind each cause and links to their attempts; a
mistake that saves the same residuals (dots_saveable on checkpoint_dot_policy) shows as well."""

import re

import pytest
from django.urls import reverse

from judge import grade, load_problem
from judge.data.report import Report
from webplatform.courses.causes import cause_of
from webplatform.submissions import services as submissions
from webplatform.submissions.models import Submission

from .courses import make_class
from .helpers import BANK

pytestmark = pytest.mark.django_db
DOT = BANK / "checkpoint_dot_policy"


@pytest.fixture(scope="module")
def reports():
    """The judge's reports of three packaged submissions (graded for real, once for the module)."""
    problem = load_problem(DOT)
    names = (
        "policy_violation/dots_saveable.py",
        "policy_violation/nothing_saveable.py",
        "wrong_answer/forgot_square.py",
    )
    return {name: grade(problem, (DOT / "submissions" / name).read_text()).to_dict() for name in names}


def submitted(user, problem, report):
    made = submissions.create_submission(user=user, problem=problem, source="# graded below", kind="submit")
    claimed = submissions.claim_submission(submission_id=made.pk, task_id=f"t-{made.pk}")
    assert submissions.complete_submission(
        submission_id=made.pk, attempt=claimed.attempts, report=Report.from_dict(report)
    )
    return made


def test_causes_are_counted_per_problem_with_their_learners_and_links_to_their_attempts(
    bank, make_user, client, reports
):
    klass = make_class(bank, make_user)
    dots, nothing = reports["policy_violation/dots_saveable.py"], reports["policy_violation/nothing_saveable.py"]
    wrong = reports["wrong_answer/forgot_square.py"]
    assert dots["verdict"] == nothing["verdict"] == "policy_violation" and wrong["verdict"] == "wrong_answer"
    assert not any(r.get("offending") for r in dots["residuals"])  # no residual row shows this mistake
    submitted(klass.ada, klass.a, dots)
    latest_ada = submitted(klass.ada, klass.a, dots)
    grace_dots = submitted(klass.grace, klass.a, dots)
    submitted(klass.grace, klass.a, nothing)
    submitted(klass.grace, klass.a, wrong)
    submitted(klass.grace, klass.b, wrong)  # another problem: counted on its own page
    Submission.objects.update(created_at=klass.day(1))  # made while the assignment was open
    client.force_login(klass.instructor)
    html = client.get(
        reverse("courses:statistics", args=[klass.course.pk, klass.assignment.pk, klass.a.slug])
    ).content.decode()
    table = html[html.index('id="causes"') :]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr><td>(.*?)</td><td>(\d+)</td>\s*<td>(.*?)</td></tr>", table, re.S)
    assert [(int(n), re.sub(r"<[^>]+>", "", cause).split(" ", 1)[0]) for cause, n, _ in rows] == [
        (3, "policy_violation"),
        (1, "policy_violation"),
        (1, "wrong_answer"),
    ]
    first, _, learners = rows[0]
    assert "uses dots_saveable, where this problem requires dots_with_no_batch_dims_saveable." in first
    assert "On this network" not in first  # the cause's first sentence only
    link = lambda s: f'href="{reverse("courses:submission", args=[klass.course.pk, s.pk])}"'  # noqa: E731
    assert f"{link(latest_ada)}>ada</a> (2)" in learners and f"{link(grace_dots)}>grace</a>" in learners
    assert "nothing_saveable" in rows[1][0] and "computes another value than the statement" in rows[2][0]
    assert "sample-1" not in rows[2][0]  # which case says where, not what: one cause on any case
    assert client.get(reverse("courses:submission", args=[klass.course.pk, latest_ada.pk])).status_code == 200


def test_the_same_mistake_on_other_lines_and_figures_is_one_cause():
    one = cause_of(
        "case sample-1: the output differs at index (): got 3.30231, expected 3.031542 (max abs error "
        "0.271, tolerance atol=1e-05 x 3.03). Try: square it."
    )
    other = cause_of(
        "case tall: the output differs at index (): got 2.79, expected 3.03 (max abs error 0.238, "
        "tolerance atol=1e-05 x 3.03). Try: square it."
    )
    assert one == other and "got …, expected …" in one and "Try" not in one
    at_8 = cause_of(
        "", "Your jax.checkpoint (line 8) uses dots_saveable, where this problem requires nothing_saveable."
    )
    at_11 = cause_of(
        "", "Your jax.checkpoint (line 11) uses dots_saveable, where this problem requires nothing_saveable."
    )
    assert at_8 == at_11 == "Your jax.checkpoint uses dots_saveable, where this problem requires nothing_saveable."
    assert cause_of("", "Your w1 is saved as f32[8,16].") == "Your w1 is saved as f32[…,…]."
