"""Who may see what: others' code never; the reference only after solving (or as instructor)."""

import pytest
from django.urls import reverse

from judge.data.report import Report
from webplatform.submissions import services

from .helpers import correct_source

pytestmark = pytest.mark.django_db
SECRET = "# my secret approach\n" + correct_source()


@pytest.fixture
def their_submission(other_learner, dot_policy):
    return services.create_submission(user=other_learner, problem=dot_policy, source=SECRET, kind="submit")


@pytest.mark.parametrize("view", ["submissions:detail", "submissions:status"])
def test_another_learners_submission_is_not_found(learner_client, their_submission, view):
    response = learner_client.get(reverse(view, args=[their_submission.pk]))
    assert response.status_code == 404 and b"my secret approach" not in response.content


def test_anonymous_visitors_are_sent_to_log_in(client, their_submission):
    response = client.get(reverse("submissions:detail", args=[their_submission.pk]))
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))


def test_the_author_sees_their_code(client, other_learner, their_submission):
    client.force_login(other_learner)
    assert b"my secret approach" in client.get(reverse("submissions:detail", args=[their_submission.pk])).content


def problem_page(client) -> str:
    return client.get(reverse("practice:problem_detail", args=["checkpoint_dot_policy"])).content.decode()


def test_the_reference_and_explanation_open_only_after_solving(learner_client, learner, dot_policy):
    reference_line = "policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable"
    before = problem_page(learner_client)
    assert reference_line not in before and 'id="solution-locked"' in before
    explanation_text = "JAX may keep the outputs of <code>dot_general</code>"
    assert explanation_text not in before and 'id="explanation"' not in before
    for verdict in ("policy_violation", "accepted"):
        submission = services.create_submission(
            user=learner, problem=dot_policy, source=correct_source(), kind="run" if verdict == "accepted" else "submit"
        )
        claimed = services.claim_submission(submission_id=submission.pk, task_id=str(submission.pk))
        services.complete_submission(
            submission_id=submission.pk,
            attempt=claimed.attempts,
            report=Report.from_dict({"verdict": verdict, "message": ""}),
        )
    still_locked = problem_page(learner_client)  # an accepted *sample run* is not a solve
    assert reference_line not in still_locked
    submission = services.create_submission(user=learner, problem=dot_policy, source=correct_source(), kind="submit")
    claimed = services.claim_submission(submission_id=submission.pk, task_id="solve")
    services.complete_submission(
        submission_id=submission.pk,
        attempt=claimed.attempts,
        report=Report.from_dict({"verdict": "accepted", "message": ""}),
    )
    after = problem_page(learner_client)
    assert reference_line in after and explanation_text in after and "✓ solved" in after


def test_instructors_see_the_reference_without_solving(client, make_user, dot_policy):
    client.force_login(make_user("teacher", instructor=True))
    assert 'id="reference"' in problem_page(client)


def test_another_learners_solve_does_not_unlock_mine(learner_client, other_learner, dot_policy):
    submission = services.create_submission(
        user=other_learner, problem=dot_policy, source=correct_source(), kind="submit"
    )
    claimed = services.claim_submission(submission_id=submission.pk, task_id="theirs")
    services.complete_submission(
        submission_id=submission.pk,
        attempt=claimed.attempts,
        report=Report.from_dict({"verdict": "accepted", "message": ""}),
    )
    assert 'id="reference"' not in problem_page(learner_client)
