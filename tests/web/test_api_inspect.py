"""POST /api/v1/problems/{slug}/inspections: the problem page's "Inspect" for a token holder, through
the same service, worker path and rate limit; its report has no verdict, and carries what the
code saves, its checkpoints and its memory over a gradient step (with the picture the site draws)."""

import pytest
from django.urls import reverse

from webplatform.leaderboard.models import Progress
from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from .api import api_for
from .helpers import correct_source, no_checkpoint_source

pytestmark = pytest.mark.django_db
INSPECT = "/problems/checkpoint_dot_policy/inspections"


@pytest.fixture
def api(client, learner):
    return api_for(client, learner)


def test_an_inspection_through_the_api_reports_what_the_code_saves_without_a_verdict(
    api, learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post(INSPECT, {"source": correct_source()})
    assert created.status_code == 201
    body = created.json()
    assert (body["kind"], body["status"], body["verdict"], body["result"]) == ("inspect", "queued", None, None)
    assert [m["args"] for m in broker.messages("cpu")] == [[body["id"]]]  # the worker path of the page's button
    assert grade_submission.apply(args=[body["id"]], task_id="m").get() == "inspected"
    data = api.get(f"/submissions/{body['id']}").json()
    assert data["done"] and data["verdict"] is None and data["result"]["verdict"] is None
    result = data["result"]
    assert [r["saved_value"] for r in result["residuals"]] == [  # in the learner's own terms
        "argument w1 (an input, kept)",
        "argument w2 (an input, kept)",
        "argument x (an input, kept)",
        "`jnp.dot(x, w1)` (dot)",
        "`jnp.dot(y, w2)` (dot)",
    ]
    assert not any(r["offending"] or r["missing"] for r in result["residuals"])
    assert result["reference_residuals"] == []  # nothing to compare with: no reference is read
    assert [(c["policy_text"], c["depth"]) for c in result["checkpoints"]] == [("dots_with_no_batch_dims_saveable", 0)]
    memory = result["memory"]
    assert memory["residual_bytes"] == 3584 and memory["peak_bytes"] > memory["residual_bytes"]
    assert memory["recomputed_operations"] > 0 and "recomputes" in memory["description"]
    assert memory["picture_svg"].startswith('<svg xmlns="http://www.w3.org/2000/svg" class="memory-picture"')
    assert not Progress.objects.exists()
    assert [s["kind"] for s in api.get("/submissions", kind="inspect").json()["submissions"]] == ["inspect"]


def test_the_api_shares_the_pages_inspection_limit_and_says_when_to_try_again(
    api, learner, learner_client, dot_policy, settings
):
    settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "INSPECTS_PER_MINUTE": 2}
    assert api.post(INSPECT, {"source": no_checkpoint_source()}).status_code == 201
    page = learner_client.post(
        reverse("submissions:inspect", args=["checkpoint_dot_policy"]),
        {"source": no_checkpoint_source()},
        HTTP_ACCEPT="application/json",
    )
    assert page.status_code == 201  # the page and the API count against the same limit
    refused = api.post(INSPECT, {"source": no_checkpoint_source()})
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert refused.json()["message"].startswith("You have inspected your code 2 times in the last minute")
    assert int(refused["Retry-After"]) == refused.json()["retry_after_s"] > 0
    assert api.post("/problems/checkpoint_dot_policy/runs", {"source": "x = 1"}).status_code == 201  # its own limit
    assert list(Submission.objects.values_list("kind", flat=True).order_by("pk")) == ["inspect", "inspect", "run"]


def test_inspection_refusals_are_the_same_json_errors(api, bank):
    empty = api.post(INSPECT, {"source": "  "})
    assert empty.status_code == 422 and empty.json()["code"] == "invalid_request"
    missing = api.post("/problems/no_such_problem/inspections", {"source": "x = 1"})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert api.client.post(f"/api/v1{INSPECT}", "{}", content_type="application/json").status_code == 401


def test_the_schema_documents_the_inspection(client, bank):
    schema = client.get("/api/openapi.json").json()
    operation = schema["paths"]["/api/v1/problems/{slug}/inspections"]["post"]
    assert "no verdict" in operation["summary"] and set(operation["responses"]) >= {"201", "429"}
    assert "inspect" in schema["components"]["schemas"]["SubmissionSummary"]["properties"]["kind"]["enum"]
