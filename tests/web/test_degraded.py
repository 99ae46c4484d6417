"""Clear answers while a part is away: 503 with Retry-After when the database is, JSON errors for
JSON clients, and /healthz saying which part is down."""

from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

from webplatform.submissions import services
from webplatform.submissions.models import Submission

from .api import api_for
from .helpers import correct_source

pytestmark = pytest.mark.django_db
SUBMIT = "/problems/checkpoint_dot_policy/submit/"
DOWN = OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')


@pytest.fixture
def learner_site(learner, dot_policy):
    client = Client(raise_request_exception=False)  # as a real server answers: no exception in the test
    client.force_login(learner)
    return client


def test_a_submission_while_the_database_is_away_gets_503_json_with_retry_after(learner_site):
    with mock.patch.object(services, "create_submission", side_effect=DOWN):
        response = learner_site.post(SUBMIT, {"source": correct_source()}, HTTP_ACCEPT="application/json")
    assert response.status_code == 503 and response["Retry-After"] == "10"
    assert response["Content-Type"] == "application/json"
    assert "database is unavailable" in response.json()["error"] and response.json()["unavailable"] == "database"


def test_a_browser_gets_a_503_page_that_says_when_to_try_again(learner_site):
    with mock.patch.object(services, "create_submission", side_effect=DOWN):
        response = learner_site.post(SUBMIT, {"source": correct_source()})
    assert response.status_code == 503 and response["Retry-After"] == "10"
    page = response.content.decode()
    assert "Try again in 10 seconds" in page and "The site is unavailable for a moment" in page


def test_json_clients_get_json_for_a_server_error_and_a_missing_page(learner_site, other_learner, dot_policy):
    with mock.patch.object(services, "create_submission", side_effect=RuntimeError("a bug")):
        response = learner_site.post(SUBMIT, {"source": correct_source()}, HTTP_ACCEPT="application/json")
    assert response.status_code == 500 and "error" in response.json() and "a bug" not in response.json()["error"]
    theirs = services.create_submission(user=other_learner, problem=dot_policy, source=correct_source(), kind="submit")
    response = learner_site.get(f"/submissions/{theirs.pk}/status/", HTTP_ACCEPT="application/json")
    assert response.status_code == 404 and "error" in response.json()
    assert learner_site.get(f"/submissions/{theirs.pk}/").status_code == 404  # a browser: the usual page


def test_healthz_says_which_part_is_down(client, broker):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"ok": True, "database": "ok", "broker": "ok"}
    broker.server.stop()
    try:
        response = client.get("/healthz")
    finally:
        broker.server.start()
    data = response.json()
    assert response.status_code == 503 and response["Retry-After"] == "10"
    assert data == {"ok": False, "database": "ok", "broker": "unavailable"}
    with mock.patch("webplatform.core.health.connection.cursor", side_effect=DOWN):
        response = client.get("/healthz")
    # Anyone learns which part is down, but not the driver's words (host, port, database name).
    assert response.json() == {"ok": False, "database": "unavailable", "broker": "ok"}
    assert str(DOWN) not in response.content.decode()
    assert not Submission.objects.exists()


def test_healthz_tells_an_operator_why_a_part_is_down(client, broker, settings):
    settings.METRICS_TOKEN = "scraper-secret"
    with mock.patch("webplatform.core.health.connection.cursor", side_effect=DOWN):
        data = client.get("/healthz", HTTP_AUTHORIZATION="Bearer scraper-secret").json()
        anonymous = client.get("/healthz", HTTP_AUTHORIZATION="Bearer a-guess").json()
    assert data["database"].startswith("unavailable: OperationalError") and anonymous["database"] == "unavailable"


def test_the_api_answers_503_in_its_own_error_shape_while_the_database_is_away(learner, dot_policy):
    api = api_for(Client(raise_request_exception=False), learner)
    with mock.patch.object(services, "create_submission", side_effect=DOWN):
        response = api.post("/problems/checkpoint_dot_policy/submissions", {"source": correct_source()})
    assert response.status_code == 503 and response["Retry-After"] == "10"
    body = response.json()
    assert (body["code"], body["retry_after_s"]) == ("unavailable", 10) and "Try again in 10" in body["message"]
    # ... as its schema says (the same answer any operation gives while the database is away)
    documented = Client().get("/api/openapi.json").json()["paths"]
    answer = documented["/api/v1/problems/{slug}/submissions"]["post"]["responses"]["503"]
    assert answer["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error"
    assert all("503" in operation["responses"] for path in documented.values() for operation in path.values())
