"""A learner's solved problems are remembered between pages (submissions.selectors.
solved_problem_ids), yet every verdict shows on the very next page: the list's tick, the problem
page's "solved" and its solution, both ways (accepted, then rejudged and wrong)."""

import pytest
from django.test import Client
from django.urls import reverse

from webplatform.submissions import services

from .scenario import graded, regrade

pytestmark = pytest.mark.django_db
LIST_TICK = 'data-mark="checkpoint_dot_policy"><span class="solved"'
PAGE_TICK = "✓ solved"


def views(client) -> tuple[str, str]:
    listing = client.get(reverse("practice:problem_list")).content.decode()
    page = client.get(reverse("practice:problem_detail", args=["checkpoint_dot_policy"])).content.decode()
    return listing, page


def test_a_verdict_shows_on_the_next_pages_both_ways(learner_client, learner, dot_policy):
    listing, page = views(learner_client)
    assert LIST_TICK not in listing and PAGE_TICK not in page and 'id="solution-locked"' in page
    graded(learner, dot_policy, "wrong_answer")
    listing, page = views(learner_client)
    assert LIST_TICK not in listing and PAGE_TICK not in page
    accepted = graded(learner, dot_policy, "accepted")
    listing, page = views(learner_client)
    assert LIST_TICK in listing and PAGE_TICK in page and 'id="reference"' in page
    services.rejudge_submission(submission_id=accepted.pk)
    regrade(accepted, "wrong_answer")
    listing, page = views(learner_client)
    assert LIST_TICK not in listing and PAGE_TICK not in page and 'id="solution-locked"' in page


def test_one_learners_verdict_marks_no_one_else(learner_client, learner, other_learner, dot_policy):
    client = Client()  # not pytest-django's ``client``: that one is learner_client
    client.force_login(other_learner)
    views(client)  # their (empty) set is remembered first
    graded(learner, dot_policy, "accepted")
    assert LIST_TICK in views(learner_client)[0]
    listing, page = views(client)
    assert LIST_TICK not in listing and PAGE_TICK not in page
