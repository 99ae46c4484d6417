"""Errors keep the site around them: 400, 403, 404 and 500 (and a form refused by the CSRF check)
in the site's layout, with the navigation and the ways back; the 500 page renders with the
database down, so it must not need it."""
import pytest
from django.db import OperationalError, connections
from django.test import Client
from django.urls import reverse

from webplatform.submissions import services

from .helpers import correct_source

pytestmark = pytest.mark.django_db


def in_layout(html: str) -> bool:
    """The site's bar with its navigation, and the error page's ways back."""
    return ('class="topbar"' in html and 'aria-label="Site"' in html and 'class="ways-back"' in html
            and f'href="{reverse("practice:problem_list")}"' in html)


def test_an_unknown_problem_is_a_404_page_of_the_site(client):
    response = client.get(reverse("practice:problem_detail", args=["no_such_problem"]))
    html = response.content.decode()
    assert response.status_code == 404 and in_layout(html)
    assert "There is no page here" in html and "<code>" not in html  # the address is not echoed back


def test_someone_elses_submission_is_the_same_404_page(learner_client, other_learner, dot_policy):
    theirs = services.create_submission(user=other_learner, problem=dot_policy, source=correct_source(), kind="submit")
    response = learner_client.get(reverse("submissions:detail", args=[theirs.pk]))
    html = response.content.decode()
    assert response.status_code == 404 and in_layout(html)
    assert 'class="who"' in html and "Your submissions" in html  # signed in: the bar and the ways back say so


def test_authoring_as_a_learner_is_a_403_page_that_says_why(learner_client):
    response = learner_client.get(reverse("authoring:index"))
    html = response.content.decode()
    assert response.status_code == 403 and in_layout(html)
    assert "Authoring is for instructors." in html and "signed in as <strong>ada</strong>" in html


def test_a_request_the_site_cannot_read_is_a_400_page(client, bank):
    response = client.get(reverse("practice:problem_list") + "?" + "&".join(["x"] * 1001))
    assert response.status_code == 400 and in_layout(response.content.decode())
    assert "The request could not be read" in response.content.decode()


def test_a_form_refused_by_the_csrf_check_is_a_403_page_with_the_visitors_own_bar(learner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    response = client.post(reverse("accounts:logout"))
    html = response.content.decode()
    assert response.status_code == 403 and in_layout(html)
    assert "without its security token" in html and ">ada</a>" in html


def test_the_500_page_renders_with_the_database_down(bank, monkeypatch):
    """Every query fails, the page's own included: the 500 page is rendered all the same (were it
    to query, the error would escape the handler and the visitor would get a bare answer)."""
    tried = []

    def refuse(*args, **kwargs):
        tried.append(1)
        raise OperationalError("the database is down")

    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)
    client = Client(raise_request_exception=False)
    response = client.get(reverse("practice:problem_list"))
    html = response.content.decode()
    assert response.status_code == 500 and in_layout(html)
    assert "Something went wrong on our side" in html and "Log in" in html  # no user: the signed-out bar
    assert tried  # the page itself did query, and failed
