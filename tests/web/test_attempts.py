"""A learner's earlier attempts on the problem page: each loads back into the editor (its code, to
its author only), and two compare line by line on a page that says in words what changed."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from webplatform.submissions.diffing import ADDED, KEPT, REMOVED, diff_lines

from .helpers import correct_source, no_checkpoint_source
from .test_pages import finish, submit

pytestmark = pytest.mark.django_db


def test_a_changed_line_is_its_old_line_removed_then_its_new_line_added():
    lines = diff_lines("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [(line.change, line.old_number, line.new_number, line.text) for line in lines] == [
        (KEPT, 1, 1, "a"),
        (REMOVED, 2, None, "b"),
        (ADDED, None, 2, "B"),
        (KEPT, 3, 3, "c"),
        (ADDED, None, 4, "d"),
    ]
    assert all(line.change == KEPT for line in diff_lines("same\n", "same\n"))


def test_an_attempts_code_is_its_authors_only(client, learner, other_learner, dot_policy):
    submission = submit(learner, dot_policy)
    url = reverse("submissions:source", args=[submission.pk])
    assert client.get(url).status_code == 302
    client.force_login(other_learner)
    assert client.get(url).status_code == 404
    client.force_login(learner)
    assert client.get(url).json() == {"id": submission.pk, "problem": dot_policy.slug, "source": correct_source()}


def test_the_recent_attempts_offer_load_and_compare(learner_client, learner, dot_policy):
    first, second = submit(learner, dot_policy), submit(learner, dot_policy)
    html = learner_client.get(reverse("practice:problem_detail", args=[dot_policy.slug])).content.decode()
    table = html[html.index('id="compare-form"') : html.index("</form>", html.index('id="compare-form"'))]
    assert '<form method="get" action="/submissions/compare/" id="compare-form">' in html
    for s in (first, second):
        assert f'<input type="checkbox" name="id" value="{s.pk}" aria-label="Compare attempt {s.pk}">' in table
        assert f'data-source-url="/submissions/{s.pk}/source/"' in table


def test_the_recent_attempts_are_read_in_one_query_however_many_there_are(learner_client, learner, dot_policy):
    # Their report's cause was read one row at a time: a learner with ten attempts paid ten queries.
    page = reverse("practice:problem_detail", args=[dot_policy.slug])

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert learner_client.get(page).status_code == 200
        return len(captured.captured_queries)

    finish(submit(learner, dot_policy), "policy_violation", message="m.", cause="The first cause.")
    one = queries()
    for _ in range(5):
        finish(submit(learner, dot_policy), "policy_violation", message="m.", cause="Another cause.")
    assert queries() == one


def test_two_attempts_compare_line_by_line(learner_client, learner, dot_policy):
    older = submit(learner, dot_policy)
    from webplatform.submissions import services

    newer = services.create_submission(user=learner, problem=dot_policy, source=no_checkpoint_source(), kind="submit")
    finish(older, "accepted")
    response = learner_client.get(reverse("submissions:compare"), {"id": [newer.pk, older.pk]})  # any order
    assert response.status_code == 200
    html = response.content.decode()
    expected = diff_lines(correct_source(), no_checkpoint_source())
    removed = sum(line.change == REMOVED for line in expected)
    added = sum(line.change == ADDED for line in expected)
    assert removed and added
    assert (
        f"Submission {newer.pk} removes {removed} line{'s' if removed != 1 else ''} of {older.pk} and adds {added}."
    ) in " ".join(html.split())
    rows = re.findall(r'<tr class="(kept|removed|added)">', html)
    assert rows == [line.change for line in expected]
    assert html.count('<span class="visually-hidden">removed</span>') == removed
    assert html.count('<span class="visually-hidden">added</span>') == added
    assert '<th scope="col">Line in %d</th>' % older.pk in html


def test_compare_needs_two_of_ones_own_attempts(learner_client, learner, other_learner, dot_policy):
    mine, theirs = submit(learner, dot_policy), submit(other_learner, dot_policy)
    url = reverse("submissions:compare")
    one = learner_client.get(url, {"id": [mine.pk]})
    assert one.status_code == 400 and "Choose exactly two attempts to compare." in one.content.decode()
    assert learner_client.get(url, {"id": [mine.pk, "x"]}).status_code == 400
    assert learner_client.get(url, {"id": [mine.pk, theirs.pk]}).status_code == 404


def test_recent_attempts_say_when_and_why_so_that_six_violations_tell_apart(learner_client, learner, dot_policy):
    """Issue 23: "Your recent attempts" showed six rows of policy_violation and nothing else."""
    causes = (
        "Your program has no jax.checkpoint, so reverse mode saves every intermediate value its backward "
        "pass needs; this problem requires jax.checkpoint with policy=dots_with_no_batch_dims_saveable.",
        "Your jax.checkpoint at line 9 uses no policy, so it saves only its arguments.",
    )
    for cause in causes:
        finish(
            submit(learner, dot_policy),
            "policy_violation",
            message=f"case sample-1: {cause} Try: something. Differences: f32[8,16] from `x @ w1`",
        )
    html = learner_client.get(reverse("practice:problem_detail", args=[dot_policy.slug])).content.decode()
    recent = html[html.index('id="recent"') : html.index("</table>", html.index('id="recent"'))]
    gists = re.findall(r'<span class="gist">(.*?)</span>', recent)
    assert gists == [
        "Your jax.checkpoint at line 9 uses no policy, so it saves only its arguments.",
        "Your program has no jax.checkpoint, so reverse mode saves every intermediate value its…",
    ]
    assert "Differences" not in recent and "case sample-1" not in recent  # the cause only, cut short
    assert len(re.findall(r'<time datetime="[^"]+" title="[^"]+ UTC">\d+\xa0minutes? ago</time>', recent)) == 2
    # a runtime error's cause is the judge's, not JAX's raw text that the message keeps
    hinted = "Your offloading policy moves saved values the wrong way."
    finish(submit(learner, dot_policy), "runtime_error", message="case sample-1: AssertionError: ", cause=hinted)
    html = learner_client.get(reverse("practice:problem_detail", args=[dot_policy.slug])).content.decode()
    recent = html[html.index('id="recent"') : html.index("</table>", html.index('id="recent"'))]
    assert re.findall(r'<span class="gist">(.*?)</span>', recent)[0] == hinted and "AssertionError" not in recent
