"""POST/GET /api/v1/explorations: the policy explorer for a token holder (``arena explore``),
through the page's service: the explorations' own lane, the same checks, the owner alone reads it."""

import httpx
import jax.numpy as jnp
import pytest
from django.test import Client

import arena
from arena import cli
from arena.client import Client as ArenaClient
from webplatform.explorer.tasks import run_exploration
from webplatform.explorer.views import EXAMPLE

from .api import api_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("explorations_walk_only")]
SHAPES = ["f32[128,256]", "f32[256,128]", "f32[64,128]"]
INPUT_BYTES = (128 * 256 + 256 * 128 + 64 * 128) * 4


@pytest.fixture
def api(client, learner):
    return api_for(client, learner)


def test_an_exploration_through_the_api_names_the_plan_within_a_budget(
    api, client, other_learner, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post(
            "/explorations", {"source": EXAMPLE, "function": "mlp", "args": SHAPES, "budget": INPUT_BYTES}
        )
    assert created.status_code == 201
    body = created.json()
    assert (body["status"], body["done"], body["rows"], body["best"]) == ("queued", False, [], None)
    assert [m["args"] for m in broker.messages("cpu.explore")] == [[body["id"]]]
    assert broker.messages("cpu.background") == []  # validations and score passback never wait behind it
    run_exploration.apply(args=[body["id"]], task_id="m")
    found = api.get(f"/explorations/{body['id']}").json()
    assert found["done"] and found["names"] == ["hidden"] and len(found["rows"]) == 9
    assert found["best"]["plan"] == "offload_dot_with_no_batch_dims" and found["best"]["held_bytes"] == INPUT_BYTES
    assert api.get(f"/explorations/{body['id']}", budget=10**9).json()["best"]["plan"] == "as written"
    # on the step's peak: the plan with the least work among those that peak no higher
    rows = found["rows"]
    lowest = min(r["peak_bytes"] for r in rows)
    on_peak = api.get(f"/explorations/{body['id']}", budget=lowest, on="peak").json()
    assert on_peak["budget_on"] == "peak" and on_peak["best"]["peak_bytes"] == lowest
    assert on_peak["best"]["flops"] == min(r["flops"] for r in rows if r["peak_bytes"] == lowest)
    assert api.get(f"/explorations/{body['id']}", budget=lowest - 1, on="peak").json()["best"] is None
    assert api.get(f"/explorations/{body['id']}", on="all").status_code == 422
    assert api_for(client, other_learner).get(f"/explorations/{body['id']}").status_code == 404


def test_an_exploration_started_on_the_peak_keeps_it_and_chooses_on_it(api, broker):
    """``budget_on`` given at the start: kept with the exploration, returned, and what ``best`` is
    chosen on until a GET's ``on`` says otherwise."""
    first = api.post("/explorations", {"source": EXAMPLE, "function": "mlp", "args": SHAPES}).json()
    run_exploration.apply(args=[first["id"]], task_id="first")
    rows = api.get(f"/explorations/{first['id']}").json()["rows"]
    lowest = min(r["peak_bytes"] for r in rows)
    least_work = min(r["flops"] for r in rows if r["peak_bytes"] == lowest)

    body = {"source": EXAMPLE, "function": "mlp", "args": SHAPES, "budget": lowest, "budget_on": "peak"}
    created = api.post("/explorations", body).json()
    assert (created["status"], created["budget"], created["budget_on"]) == ("queued", lowest, "peak")
    run_exploration.apply(args=[created["id"]], task_id="m")
    found = api.get(f"/explorations/{created['id']}").json()
    assert found["budget_on"] == "peak" and (found["best"]["peak_bytes"], found["best"]["flops"]) == (
        lowest,
        least_work,
    )
    on_held = api.get(f"/explorations/{created['id']}", on="held").json()
    assert on_held["budget_on"] == "held" and on_held["best"]["held_bytes"] <= lowest
    assert on_held["best"]["plan"] != found["best"]["plan"]
    # an exploration started without it bounds what is held, as before the choice existed
    assert api.get(f"/explorations/{first['id']}").json()["budget_on"] == "held"


def test_what_the_budget_bounds_is_held_or_peak_and_documented(api, client, broker):
    bad = api.post("/explorations", {"source": EXAMPLE, "function": "mlp", "args": SHAPES, "budget_on": "all"})
    assert (bad.status_code, bad.json()["code"]) == (422, "invalid_request")
    [error] = bad.json()["errors"]
    assert error["location"][-1] == "budget_on" and "'held' or 'peak'" in error["message"]
    # input the explorer cannot use is taken, failed at once, with what its budget was on
    refused = api.post("/explorations", {"source": EXAMPLE, "function": "mlp", "args": ["f32[n]"], "budget_on": "peak"})
    assert (refused.json()["status"], refused.json()["budget_on"]) == ("failed", "peak")
    schema = client.get("/api/openapi.json").json()["components"]["schemas"]
    started = schema["ExplorationIn"]["properties"]["budget_on"]
    assert started["enum"] == ["held", "peak"] and started["default"] == "held" and "peak" in started["description"]


@pytest.mark.parametrize(
    "body",
    [
        {"source": EXAMPLE, "function": "mlp", "args": SHAPES, "budget": 0},
        {"source": EXAMPLE, "function": "mlp", "args": SHAPES, "budget": True},  # not 1 byte
        {"source": EXAMPLE, "function": "mlp"},
        {"source": " ", "function": "mlp", "args": SHAPES},
        {"source": EXAMPLE, "function": "not a name", "args": SHAPES},
    ],
)
def test_input_the_schema_refuses_is_a_422(api, broker, body):
    answer = api.post("/explorations", body)
    assert (answer.status_code, answer.json()["code"]) == (422, "invalid_request")


def test_input_the_explorer_cannot_use_is_taken_and_says_why_it_did_not_run(api, broker):
    """What the schema admits is taken (201), and the exploration, failed at once, says why: no
    message reaches the worker."""
    answer = api.post("/explorations", {"source": EXAMPLE, "function": "mlp", "args": ["f32[n]"]})
    body = answer.json()
    assert answer.status_code == 201 and (body["status"], body["done"]) == ("failed", True)
    assert "concrete sizes" in body["error"] and broker.messages("cpu.explore") == []


def test_a_learner_has_at_most_one_exploration_in_flight(api, broker):
    body = {"source": EXAMPLE, "function": "mlp", "args": SHAPES}
    assert api.post("/explorations", body).status_code == 201
    second = api.post("/explorations", body)
    assert (second.status_code, second.json()["code"]) == (429, "rate_limited") and second["Retry-After"] == "5"
    assert "wait until it finishes" in second.json()["message"]


def test_a_learner_starts_at_most_so_many_explorations_an_hour_through_the_api(api, learner, broker, settings):
    from webplatform.explorer.models import Exploration

    settings.EXPLORATIONS = {"IN_FLIGHT": 1, "PER_HOUR": 2, "WINDOW_S": 3600}
    body = {"source": EXAMPLE, "function": "mlp", "args": SHAPES}
    for _ in range(2):
        assert api.post("/explorations", body).status_code == 201
        Exploration.objects.filter(user=learner, status="queued").update(status="done", attempts=1)
    over = api.post("/explorations", body)
    assert (over.status_code, over.json()["code"]) == (429, "rate_limited") and 3500 < int(over["Retry-After"]) <= 3600
    assert "you started 2 explorations within the last 60 minutes" in over.json()["message"]


def _mlp(w1, w2, x):
    return jnp.sum(jnp.tanh(jnp.tanh(x @ w1) @ w2) ** 2)


def test_the_python_client_explores_a_function_through_the_api(learner, monkeypatch, capsys, tmp_path):
    """``arena.explore(fn, *shapes)`` and ``arena explore FILE``, talking to this site (the
    client's HTTP handed to Django's test client; the worker's task run when an exploration is
    queued, as the background worker would)."""
    site = api_for(Client(), learner)
    asked = []  # each request's query, to see which choices came after the start

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(dict(request.url.params))
        headers = {"HTTP_AUTHORIZATION": request.headers["Authorization"]}
        if request.method == "POST":
            answer = site.client.post(request.url.path, request.content, content_type="application/json", **headers)
            if answer.status_code == 201:
                run_exploration.apply(args=[answer.json()["id"]], task_id="m")
        else:
            answer = site.client.get(request.url.path, dict(request.url.params), **headers)
        return httpx.Response(answer.status_code, content=answer.content, headers={"Content-Type": "application/json"})

    token = site.headers["HTTP_AUTHORIZATION"].split()[1]
    transport = httpx.MockTransport(handler)
    fake = ArenaClient("http://site.example", token, transport=transport)
    monkeypatch.setattr(arena, "_client", fake)
    found = arena.explore(_mlp, *SHAPES, budget=10**9)
    assert found.best.plan == "as written" and len(found.rows) == 6  # no names: no plans for names
    nothing = next(r for r in found.rows if r.plan == "nothing_saveable")
    assert nothing.held_bytes == INPUT_BYTES and nothing.recomputed_flops > 0
    assert "nothing_saveable" in repr(found)
    # the budget on the step's peak: sent at the start, so the site chose on it (no asking again)
    lowest = min(r.peak_bytes for r in found.rows)
    asked.clear()
    on_peak = arena.explore(_mlp, *SHAPES, budget=lowest, budget_on="peak")
    assert on_peak.best.peak_bytes == lowest and on_peak.exploration.budget_on == "peak"
    assert not any("on" in query for query in asked)

    path = tmp_path / "mine.py"
    path.write_text(EXAMPLE)
    monkeypatch.setattr(cli, "_client", lambda: ArenaClient("http://site.example", token, transport=transport))
    assert cli.main(["explore", str(path), "--args", *SHAPES, "--budget", str(INPUT_BYTES)]) == 0
    out = capsys.readouterr().out
    assert "save_only_these_names('hidden')" in out
    assert "jax.checkpoint(mlp, policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims(" in out
    assert cli.main(["explore", str(path), "--args", *SHAPES, "--budget", "1", "--budget-on", "peak"]) == 0
    assert "No plan's step peaks at 1 bytes or fewer." in capsys.readouterr().out


def test_the_client_asks_an_older_site_again_for_a_budget_on_the_peak():
    """A site from before the choice at the start ignores ``budget_on`` and answers on what is
    held: the client then asks for the plan on the peak once the exploration is done."""
    asked = []

    def older_site(request: httpx.Request) -> httpx.Response:
        asked.append((request.method, dict(request.url.params)))
        on = request.url.params.get("on", "held")
        found = {"id": 7, "status": "done", "done": True, "budget_on": on, "rows": [], "best": {"plan": on}}
        return httpx.Response(201 if request.method == "POST" else 200, json=found)

    site = ArenaClient("http://old.example", "token", transport=httpx.MockTransport(older_site))
    created = site.explore("def f(x):\n    return x\n", "f", ["f32[4]"], budget=10, budget_on="peak")
    found = site.chosen_on(site.wait_exploration(created["id"]), budget=10, budget_on="peak")
    assert found["best"] == {"plan": "peak"} and asked[-1] == ("GET", {"budget": "10", "on": "peak"})


@pytest.mark.parametrize(
    "shape, phrase",
    [
        ("f32[4,99999999999999999999]", "not a whole number from 1 to"),
        # each size within its bound, their product (in Python's integers: no wrap to 0) past the limit
        ("f32[4294967296,4294967296]", "elements together"),
        ("f32[8388608,8388608,8388608,8388608]", "elements together"),
    ],
)
def test_sizes_past_the_limits_are_taken_and_say_why_they_did_not_run(api, broker, shape, phrase):
    answer = api.post("/explorations", {"source": EXAMPLE, "function": "mlp", "args": [shape]})
    body = answer.json()
    assert answer.status_code == 201 and (body["status"], body["done"]) == ("failed", True)
    assert phrase in body["error"] and broker.messages("cpu.explore") == []
