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
    return (
        'class="topbar"' in html
        and 'aria-label="Site"' in html
        and 'class="ways-back"' in html
        and f'href="{reverse("practice:problem_list")}"' in html
    )


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


def test_the_503_page_renders_with_the_database_down(bank, monkeypatch):
    """Every query fails, the page's own included: the database is away, so the answer is 503 with
    when to try again (core.errors), in the site's layout all the same (were it to query, the error
    would escape the handler and the visitor would get a bare answer)."""
    tried = []

    def refuse(*args, **kwargs):
        tried.append(1)
        raise OperationalError("the database is down")

    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)
    client = Client(raise_request_exception=False)
    response = client.get(reverse("practice:problem_list"))
    html = response.content.decode()
    assert response.status_code == 503 and response["Retry-After"] == "10" and in_layout(html)
    assert "The site is unavailable for a moment" in html and "Log in" in html  # no user: the signed-out bar
    assert tried  # the page itself did query, and failed


def test_a_csrf_refusal_is_json_for_a_json_client(learner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    response = client.post("/courses/new/", {"title": "x"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert "security token" in response.json()["error"]


def test_a_wrong_method_is_a_405_page_or_json_with_what_it_takes(learner_client, bank):
    page = learner_client.get("/problems/checkpoint_dot_policy/submit/")
    assert page.status_code == 405 and page["Allow"] == "POST" and b'id="site-nav"' in page.content
    assert b"does not take a GET request (it takes POST)" in page.content
    json_refusal = learner_client.get("/problems/checkpoint_dot_policy/submit/", HTTP_ACCEPT="application/json")
    assert json_refusal.status_code == 405 and "it takes POST" in json_refusal.json()["error"]


def test_a_form_too_large_is_a_413_page_or_json(learner_client, bank, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = {"source": "x" * 5000}
    page = learner_client.post("/problems/checkpoint_dot_policy/submit/", big)
    assert page.status_code == 413 and b'id="site-nav"' in page.content
    answer = learner_client.post("/problems/checkpoint_dot_policy/submit/", big, HTTP_ACCEPT="application/json")
    assert answer.status_code == 413 and "larger than the site accepts" in answer.json()["error"]


# --- A JSON client gets JSON from every page view's refusal -------------------------------------

JSON = {"HTTP_ACCEPT": "application/json"}


def said_in_json(response, status: int) -> str:
    """The refusal's words, once it is checked to be JSON with this status and nothing of a page."""
    assert response.status_code == status, response.content[:200]
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"} and body["error"] and "<" not in body["error"]
    return body["error"]


def test_comparing_anything_but_two_attempts_is_json_to_a_json_client(learner_client, bank):
    for query in ("?id=0&id=1", "?id=1", "?id=%C2%B2&id=1", ""):
        assert "Choose exactly two attempts" in said_in_json(
            learner_client.get(reverse("submissions:compare") + query, **JSON), 400
        )
    page = learner_client.get(reverse("submissions:compare") + "?id=0&id=1")
    assert page.status_code == 400 and 'class="topbar"' in page.content.decode()  # a browser keeps the page


def test_an_explorations_page_refuses_a_budget_in_json_and_someone_elses_with_a_json_404(
    learner_client, learner, other_learner
):
    from webplatform.explorer.models import Exploration

    def made(user):
        return Exploration.objects.create(
            user=user, source="def f(x):\n    return x\n", function="f", args=["f32[4]"], status="done", result={}
        )

    mine, theirs = made(learner), made(other_learner)
    page = reverse("explorer:detail", args=[mine.pk])
    for budget in ("-1", "0", "\u00b2"):
        assert "budget" in said_in_json(learner_client.get(page, {"budget": budget}, **JSON), 400).lower()
    said_in_json(learner_client.get(reverse("explorer:detail", args=[theirs.pk]), **JSON), 404)
    assert learner_client.get(page, {"budget": "-1"}).status_code == 400  # a browser keeps the page


def test_the_explorers_form_refuses_in_json_with_the_reason(learner_client, learner, broker):
    answer = learner_client.post(
        reverse("explorer:explore"), {"source": "def f(x):\n    return x\n", "function": "f", "args": "f32[0]"}, **JSON
    )
    assert "f32[0]" in said_in_json(answer, 400) or "size" in said_in_json(answer, 400).lower()


def test_a_deep_link_with_no_selection_under_way_is_a_json_404(instructor_client):
    message = said_in_json(instructor_client.get("/lti/deep-link/", **JSON), 404)
    assert "content selection" in message.lower()


def test_a_page_views_own_refusal_keeps_its_headers_as_json(learner_client, learner, broker, settings):
    """A 429 made by a page view (the explorer's limit) comes as JSON with its Retry-After."""
    settings.EXPLORATIONS = {**settings.EXPLORATIONS, "IN_FLIGHT": 1}
    form = {"source": "def f(x):\n    return (x * x).sum()\n", "function": "f", "args": "f32[4]"}
    assert learner_client.post(reverse("explorer:explore"), form).status_code == 302
    refused = learner_client.post(reverse("explorer:explore"), form, **JSON)
    said_in_json(refused, 429)
    assert int(refused["Retry-After"]) > 0
