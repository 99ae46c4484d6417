"""The API says what the pages say: the same problems in the same order and filters, the same
statement, the same refusals with the same words and limits, the same verdict report."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from webplatform.catalog.rendering import render_statement
from webplatform.practice import selectors as practice
from webplatform.submissions.models import Submission

from .api import Api, api_for
from .helpers import correct_source
from .scenario import five_learners
from .test_pages import REPORT, finish, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client, learner):
    return api_for(client, learner)


def page_slugs(client, **filters) -> list[str]:
    html = client.get(reverse("practice:problem_list"), filters).content.decode()
    return re.findall(r'<tr data-slug="(\w+)">', html)


@pytest.mark.parametrize(
    "filters", [{}, {"tag": "names"}, {"difficulty": "easy"}, {"tag": "dots", "difficulty": "hard"}]
)
def test_the_problem_list_is_the_pages_list_in_its_order(client, bank, api, filters):
    listed = api.get("/problems", **filters).json()["problems"]
    assert [p["slug"] for p in listed] == page_slugs(Client(), **filters) and listed
    anonymous = Api(Client(), None).get("/problems", **filters).json()["problems"]
    assert anonymous == listed  # nothing solved yet: the same for a visitor


def test_the_list_marks_what_the_token_owner_solved_and_counts_verdicts(client, api, learner, dot_policy):
    finish(submit(learner, dot_policy), "accepted")
    rows = {p["slug"]: p for p in api.get("/problems").json()["problems"]}
    assert rows["checkpoint_dot_policy"]["solved"] and not rows["checkpoint_names"]["solved"]
    assert (rows["checkpoint_dot_policy"]["graded"], rows["checkpoint_dot_policy"]["accepted"]) == (1, 1)
    assert rows["checkpoint_dot_policy"]["acceptance_rate"] == 1.0
    assert rows["checkpoint_dot_policy"]["url"] == reverse("practice:problem_detail", args=["checkpoint_dot_policy"])


def test_a_problem_carries_its_statement_signature_starter_samples_and_hints(api, dot_policy):
    data = api.get("/problems/checkpoint_dot_policy").json()
    version = dot_policy.current_version
    assert data["version"] == version.number and data["signature"] == version.signature
    assert data["entry"] == "checkpoint_dot_policy" and data["starter"] == version.starter
    assert data["statement_markdown"] == version.statement
    assert (
        data["statement_html"] == render_statement(version.statement)
        and "<code>jax.checkpoint</code>" in data["statement_html"]
    )
    assert [s["name"] for s in data["samples"]] == ["sample-1", "sample-2"] and data["case_count"] == 4
    assert data["samples"][0]["shapes"] == {"w1": [16, 16], "w2": [16, 16], "x": [8, 16]}
    assert data["hints"] == version.hints and len(data["hints"]) == 3
    assert data["solved"] is False and data["solution"] is None


def test_the_solution_comes_with_solving_as_on_the_page(api, learner, dot_policy):
    finish(submit(learner, dot_policy, kind="run"), "accepted")  # a sample run is not a solve
    assert api.get("/problems/checkpoint_dot_policy").json()["solution"] is None
    finish(submit(learner, dot_policy), "accepted")
    data = api.get("/problems/checkpoint_dot_policy").json()
    assert data["solved"] and data["solution"]["reference"] == dot_policy.current_version.reference
    assert "dot_general" in data["solution"]["explanation_html"]


def test_an_instructors_token_sees_references_as_the_instructor_does(client, instructor, dot_policy):
    data = api_for(client, instructor).get("/problems/checkpoint_dot_policy").json()
    assert practice.can_see_solution(user=instructor, problem=dot_policy)
    assert data["solution"]["reference"] == dot_policy.current_version.reference and not data["solved"]


def test_running_and_submitting_record_an_attempt_as_the_page_does(
    api, learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = api.post("/problems/checkpoint_dot_policy/runs", {"source": correct_source()})
        recorded = api.post(
            "/problems/checkpoint_dot_policy/submissions",
            {"source": correct_source(), "version": dot_policy.current_version.number},
        )
    assert run.status_code == recorded.status_code == 201
    assert (run.json()["kind"], recorded.json()["kind"]) == ("run", "submit")
    assert recorded.json()["status"] == "queued" and recorded.json()["verdict"] is None
    assert recorded.json()["result"] is None and recorded.json()["source"] == correct_source()
    rows = Submission.objects.filter(user=learner).order_by("id")
    assert [(s.kind, s.version_id) for s in rows] == [("run", dot_policy.current_version_id)] * 1 + [
        ("submit", dot_policy.current_version_id)
    ]
    assert [m["args"] for m in broker.messages("cpu")] == [[run.json()["id"]], [recorded.json()["id"]]]


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        ({"source": "   "}, 422, "invalid_request", "The submission is empty"),
        ({"source": "x = 1\x00"}, 422, "invalid_request", "NUL character"),
        ({"source": "x = 1\n" + "#" * 70_000}, 413, "source_too_large", "larger than 64 KiB"),
        ({"source": "x = 1", "version": 99}, 404, "unknown_version", "no version 99"),
        ({"code": "x = 1"}, 422, "invalid_request", "body.source"),
    ],
)
def test_refusals_are_json_with_a_stable_code_and_the_sites_words(api, dot_policy, body, status, code, words):
    response = api.post("/problems/checkpoint_dot_policy/submissions", body)
    assert response.status_code == status and response["Content-Type"] == "application/json"
    assert response.json()["code"] == code and words in response.content.decode()
    assert not Submission.objects.exists()


def test_the_rate_limit_is_the_sites_with_retry_after(api, learner, learner_client, dot_policy, settings):
    settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "PER_MINUTE": 2}
    assert api.post("/problems/checkpoint_dot_policy/submissions", {"source": "x = 1"}).status_code == 201
    assert api.post("/problems/checkpoint_dot_policy/submissions", {"source": "x = 1"}).status_code == 201
    refused = api.post("/problems/checkpoint_dot_policy/submissions", {"source": "x = 1"})
    page = learner_client.post(
        reverse("submissions:submit", args=["checkpoint_dot_policy"]),
        {"source": "x = 1"},
        HTTP_ACCEPT="application/json",
    )
    assert refused.status_code == page.status_code == 429
    assert refused.json()["code"] == "rate_limited" and refused.json()["message"] == page.json()["error"]
    assert int(refused["Retry-After"]) == refused.json()["retry_after_s"] > 0
    # Runs have their own limit: the submissions used up do not hold one back.
    assert api.post("/problems/checkpoint_dot_policy/runs", {"source": "x = 1"}).status_code == 201
    assert Submission.objects.count() == 3


def test_not_found_and_bad_requests_say_so_in_json(api, bank):
    missing = api.get("/problems/no_such_problem")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert "no_such_problem" in missing.json()["message"]
    bad = api.get("/problems", difficulty="impossible")
    assert bad.status_code == 422 and bad.json()["errors"][0]["location"] == ["query", "difficulty"]
    for response, code in (
        (api.client.get("/api/v1/nothing/here"), "not_found"),
        (api.client.delete("/api/v1/problems"), "method_not_allowed"),
        (
            api.client.post(
                "/api/v1/problems/checkpoint_dot_policy/runs",
                "{not json",
                content_type="application/json",
                **api.headers,
            ),
            "invalid_body",
        ),
    ):
        assert response["Content-Type"] == "application/json" and response.json()["code"] == code
    assert api.client.delete("/api/v1/problems")["Allow"] == "GET"


def test_a_graded_submission_carries_the_verdict_pages_report(api, learner, dot_policy):
    submission = submit(learner, dot_policy)
    finish(
        submission,
        "policy_violation",
        **REPORT,
        cost={"flops": 1200.0, "peak_bytes": 900, "xla_flops": 1000.0, "xla_peak_bytes": 800, "xla_temp_bytes": 0},
    )
    data = api.get(f"/submissions/{submission.pk}").json()
    assert data["done"] and data["verdict"] == "policy_violation" and data["message"] == "policy_violation!"
    result = data["result"]
    assert result["cases"] == [
        {
            "name": "sample-1",
            "sample": True,
            "verdict": "policy_violation",
            "max_error": 0.0,
            "message": "relu saved",
            "skipped": False,
        }
    ]
    marked = [(r["saved_value"], r["offending"], r["missing"]) for r in result["residuals"]]
    assert marked == [
        ("argument x (an input, kept)", False, False),
        ("output of relu", True, False),
        ("output of dot_general", True, True),
    ]
    assert result["reference_residuals"] == [
        {"type": "f32[8,16]", "bytes": 512, "saved_value": "argument x (an input, kept)", "memory": "device"},
        {"type": "f32[8,16]", "bytes": 512, "saved_value": "output of dot_general", "memory": "device"},
    ]
    assert result["required_residuals"] == result["reference_residuals"]  # its former name, for one release
    assert {r["memory"] for r in result["residuals"]} == {"device"}  # nothing offloaded here
    assert result["memory"] == {
        "residual_bytes": 1536,
        "reference_residual_bytes": 1024,
        "bytes_over": 512,
        "host_residual_bytes": 0,
        "reference_host_residual_bytes": 0,
        "required_residual_bytes": 1024,  # the former names, for one release
        "required_host_residual_bytes": 0,
        "flops": 1200,
        "peak_bytes": 900,
        "xla_flops": 1000,
        "xla_peak_bytes": 800,
        "recomputed_operations": None,
        "description": "",
        "picture_svg": None,
    }  # no timeline
    assert result["checkpoints"] == [
        {"line": 4, "policy_text": "nothing_saveable", "depth": 0, "policy": "nothing_saveable"}
    ]
    assert "FORWARD" in result["programs"]["forward"] and result["stdout"] == "hello from print"


def test_history_lists_the_owners_attempts_with_the_pages_filters(api, learner, other_learner, dot_policy, bank):
    mine = [
        submit(learner, dot_policy, kind="run"),
        submit(learner, dot_policy),
        submit(learner, bank["checkpoint_names"]),
    ]
    submit(other_learner, dot_policy)
    everything = api.get("/submissions").json()
    assert [s["id"] for s in everything["submissions"]] == [s.pk for s in reversed(mine)] and everything["count"] == 3
    assert [s["id"] for s in api.get("/submissions", kind="run").json()["submissions"]] == [mine[0].pk]
    by_problem = api.get("/submissions", problem="checkpoint_dot_policy", limit=1, offset=1).json()
    assert [s["id"] for s in by_problem["submissions"]] == [mine[0].pk] and by_problem["count"] == 2


def test_leaderboards_are_the_pages_rankings(client, make_user, bank):
    api = api_for(client, five_learners(bank, make_user)["users"]["ada"])
    board = api.get("/leaderboard").json()
    assert [(s["rank"], s["username"]) for s in board["standings"]][:3] == [(1, "ada"), (1, "barbara"), (3, "edsger")]
    assert board["you"]["username"] == "ada" and board["ranked"] == 5
    assert api.get("/leaderboard", tag="layers").json()["standings"][0]["username"] == "alan"
    problem = api.get("/leaderboard/problems/checkpoint_dot_policy").json()
    assert problem["ranked_by"] == ["residual_bytes", "flops"] and problem["ranked"] == 4
    assert {e["username"] for e in problem["entries"]} == {"ada", "barbara", "edsger", "grace"}
    assert problem["pareto_front"] == [{"flops": 160000, "residual_bytes": 3584, "learners": 4}]
    assert api.get("/leaderboard", page=2).json()["standings"] == []


def test_a_crash_is_a_json_500_that_blames_the_server(api, bank, monkeypatch):
    def broken(**filters):
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(practice, "problem_list", broken)
    api.client.raise_request_exception = False
    response = api.get("/problems")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert response.json()["code"] == "internal_error" and "bug" not in response.json()["message"]
