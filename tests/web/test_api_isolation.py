"""One learner's token never reaches what the site keeps from them: another learner's
submissions and runs, instructors' drafts (unpublished problems, unpublished edits), the hidden
cases and the references. Each check is also made where the thing *is* visible (its owner, an
instructor, after solving), so that it cannot pass by finding nothing anywhere."""

import json

import pytest
from django.test import Client

from judge import load_problem
from judge.packages.archive import folder_files
from webplatform.authoring import services as authoring
from webplatform.catalog.models import Problem

from .api import api_for
from .helpers import BANK, DOT_POLICY, copy_package, correct_source
from .test_pages import finish, submit

pytestmark = pytest.mark.django_db
SECRET_CODE = "# grace's secret approach\n" + correct_source()


def everything_visible(api, slugs) -> str:
    """Every GET of the API a learner can make, answers joined: what that token can read."""
    paths = ["/me", "/problems", "/submissions", "/leaderboard"]
    paths += [f"/problems/{slug}" for slug in slugs] + [f"/leaderboard/problems/{slug}" for slug in slugs]
    answers = [api.get(path) for path in paths]
    own = [s["id"] for s in api.get("/submissions", limit=200).json()["submissions"]]
    answers += [api.get(f"/submissions/{submission_id}") for submission_id in own]
    assert all(a.status_code == 200 for a in answers), [(p, a.status_code) for p, a in zip(paths, answers)]
    return "\n".join(a.content.decode() for a in answers)


@pytest.fixture
def graces_attempts(other_learner, dot_policy):
    """grace's recorded submission and sample run, graded, with her own code."""
    mine = []
    for kind in ("submit", "run"):
        from webplatform.submissions import services

        submission = services.create_submission(user=other_learner, problem=dot_policy, source=SECRET_CODE, kind=kind)
        finish(submission, "accepted")
        mine.append(submission)
    return mine


def test_another_learners_submissions_and_runs_are_not_found(
    client, learner, other_learner, instructor, graces_attempts, bank
):
    ada, iris = api_for(client, learner), api_for(Client(), instructor)
    for submission in graces_attempts:
        for api in (ada, iris):  # an instructor's token no more than a learner's
            response = api.get(f"/submissions/{submission.pk}")
            assert response.status_code == 404 and b"secret approach" not in response.content
        assert api_for(Client(), other_learner).get(f"/submissions/{submission.pk}").json()["source"] == SECRET_CODE
    assert "secret approach" not in everything_visible(ada, bank)
    assert ada.get("/submissions").json()["count"] == 0


def test_drafts_are_not_reachable_published_or_not(client, learner, instructor, bank, tmp_path):
    unpublished = authoring.create_draft(
        user=instructor, files=folder_files(copy_package(BANK / "checkpoint_names", tmp_path, "secret_draft_problem"))
    )
    edited = authoring.start_draft_from_problem(user=instructor, problem=bank["checkpoint_dot_policy"])
    files = dict(edited.files)
    files["statement.md"] = files["statement.md"] + "\n\nDRAFT-ONLY SENTENCE of an unpublished edit.\n"
    authoring.update_draft(draft=edited, files=files)
    assert not Problem.objects.filter(slug=unpublished.slug).exists()
    for user in (learner, instructor):  # the API has no drafts at all, not even for their author
        api = api_for(Client(), user)
        assert api.get("/problems/secret_draft_problem").status_code == 404
        assert api.post("/problems/secret_draft_problem/runs", {"source": correct_source()}).status_code == 404
        assert api.get("/leaderboard/problems/secret_draft_problem").status_code == 404
        seen = everything_visible(api, bank)
        assert "secret_draft_problem" not in seen and "DRAFT-ONLY SENTENCE" not in seen
        assert "Checkpoint with a save policy" in seen  # the published version is there


def hidden_case_shapes() -> set[str]:
    """The shapes of checkpoint_dot_policy's hidden cases, as the API would write them."""
    problem = load_problem(DOT_POLICY)
    shapes = set()
    for case in problem.cases:
        if not case.sample:
            for arg in problem.args:
                if not arg.static:
                    shape = list(arg.spec.shape(case.dims))
                    shapes |= {json.dumps(shape), "[" + ",".join(map(str, shape)) + "]"}
    return shapes


def test_hidden_cases_and_the_reference_stay_hidden_until_solved(client, learner, instructor, dot_policy, bank):
    version = dot_policy.current_version
    reference_line = "policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable"
    explanation = version.explanation.strip().splitlines()[-1]
    hidden = hidden_case_shapes()
    assert hidden and reference_line in version.reference and explanation
    ada = api_for(client, learner)
    finish(submit(learner, dot_policy, kind="run"), "accepted")  # a sample run is no solve
    seen = everything_visible(ada, bank)
    # Other problems' own sample shapes may coincide with these: the shapes are looked for in
    # what the API says of this problem and of the learner's submissions to it.
    seen_here = everything_visible(ada, ["checkpoint_dot_policy"])
    assert not [shape for shape in hidden if shape in seen_here]
    assert reference_line not in seen and explanation not in seen
    assert '"[[cases]]"' not in seen and "problem.toml" not in seen
    # Where the reference is visible, the same scan finds it: the check above can fail.
    assert reference_line in everything_visible(api_for(Client(), instructor), bank)
    finish(submit(learner, dot_policy), "accepted")
    solved = everything_visible(ada, ["checkpoint_dot_policy"])
    assert reference_line in solved and not [shape for shape in hidden if shape in solved]


def test_a_judge_failure_never_shows_the_judges_own_words(client, learner, dot_policy):
    """The judge's error can quote the reference or the package; the site keeps it in the
    stored report only (``judge_error``), and so does the API."""
    from webplatform.submissions import services

    submission = submit(learner, dot_policy)
    claimed = services.claim_submission(submission_id=submission.pk, task_id="t")
    for attempt in range(1, 4):
        if attempt > 1:
            claimed = services.claim_submission(submission_id=submission.pk, task_id=f"t{attempt}")
        services.record_grading_failure(
            submission_id=submission.pk,
            attempt=claimed.attempts,
            message="the reference of checkpoint_dot_policy failed: REFERENCE-SECRET",
        )
    data = api_for(client, learner).get(f"/submissions/{submission.pk}").json()
    assert data["verdict"] == "internal_error" and "not a problem with your code" in data["message"]
    assert "REFERENCE-SECRET" not in json.dumps(data)
