"""Bad input is a 4xx everywhere: every URL pattern of the site (Django's resolver, the API's
operations included) is called with hostile values in its path, its query string and its form or
JSON body, signed in as a learner and as an instructor, and none may answer 500. The values are
what a probe sends: NUL bytes (PostgreSQL refuses them in any text), ids past 64 bits (SQLite
overflows), non-UUIDs, very long strings, bytes that are not UTF-8, negative pages and digits that are not ASCII.
`make test` runs this again on PostgreSQL (tests/postgres_pass.py)."""

import json
import re
import uuid

import pytest
from django.test import Client
from django.urls import URLResolver, get_resolver

from webplatform.api.services import create_token

pytestmark = pytest.mark.django_db

# As they go into a URL (already percent-encoded where they must be).
HOSTILE = {
    "nul": "a%00b",
    "big-id": "9" * 20,
    "not-a-uuid": "not-a-uuid",
    "long": "x" * 3000,
    "not-utf8": "%FF%FE%C0",
    "negative": "-1",
    "digits-not-ascii": "1%C2%B2",  # "1²": str.isdigit() says yes, int() says no
}
# Every query parameter a view or an operation reads, and a few that none does.
QUERY_NAMES = (
    "q",
    "tag",
    "difficulty",
    "page",
    "period",
    "kind",
    "id",
    "draft",
    "show",
    "next",
    "problem",
    "limit",
    "offset",
    "iss",
    "login_hint",
    "target_link_uri",
    "client_id",
    "lti_message_hint",
    "code",
    "version",
    "openid_configuration",
    "registration_token",
)
FORM_NAMES = QUERY_NAMES + (
    "base",
    "source",
    "title",
    "assignment",
    "problems",
    "state",
    "id_token",
    "username",
    "password",
    "name",
    "slug",
    "due_at",
    "opens_at",
    "member",
    "extra_minutes",
)
# Plausible values for a placeholder, so that a hostile query string reaches the view itself.
PLAUSIBLE = {"slug": "checkpoint_dot_policy", "uuid": str(uuid.uuid4()), "path": "starter.py", "code": "ABCD-1234"}
PLACEHOLDER = re.compile(r"<(?:(\w+):)?(\w+)>|\(\?P<(\w+)>[^)]*\)")
# A learner's own grading would stream for as long as it waits; hostile ids only there.
STREAMS = re.compile(r"^submissions/<id:submission_id>/events/$")


def routes(patterns=None, prefix=""):
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            yield from routes(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern)


def fill(route: str, value: str | None) -> str:
    """The route with every placeholder set to ``value`` (None: a plausible value for its kind)."""

    def one(match):
        if value is not None:
            return value
        kind, name = match.group(1) or "str", match.group(2) or match.group(3)
        return PLAUSIBLE.get(kind, PLAUSIBLE.get(name, "1"))

    path = PLACEHOLDER.sub(one, route.lstrip("^").rstrip("$"))
    return "/" + path.replace("\\", "")


def calls():
    """(name, path, query) for every route: hostile path and query, and plausible path with a
    hostile query."""
    for route in sorted(set(routes())):
        for name, value in HOSTILE.items():
            query = "&".join(f"{key}={value}" for key in QUERY_NAMES) + "&id=1&lti1p3_new_window=1"
            yield route, name, fill(route, value), query
            # The admin refuses anyone but staff before it reads its path: hostile values suffice.
            if PLACEHOLDER.search(route) and not STREAMS.match(route) and not route.startswith("admin/"):
                yield route, name, fill(route, None), query


def signed_in(user) -> tuple[Client, dict]:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client, {"HTTP_AUTHORIZATION": f"Bearer {create_token(user=user, name='probe').token}"}


@pytest.mark.parametrize("who", ["learner", "instructor"])
def test_no_url_answers_500_to_hostile_values(who, request, bank, broker, settings):
    settings.SUBMISSION_LIMITS = {
        **settings.SUBMISSION_LIMITS,
        "PER_MINUTE": 0,
        "RUNS_PER_MINUTE": 0,
        "INSPECTS_PER_MINUTE": 0,
    }
    user = request.getfixturevalue(who)
    client, auth = signed_in(user)
    walked = set(routes())
    # The walk finds every app's routes and the API's operations (a resolver change cannot empty it).
    assert {
        "api/v1/submissions/<submission_id>",
        "courses/<id:course_id>/",
        "lti/login/<uuid:registration_uuid>/",
        "authoring/preview/",
        "users/<str:username>/",
        "submissions/compare/",
    } <= walked and len(walked) > 150
    failures = []
    for route, name, path, query in calls():
        url = f"{path}?{query}"
        form = {key: HOSTILE[name].replace("%00", "\x00") for key in FORM_NAMES}
        answers = [("GET", client.get(url, **auth))]
        if route.startswith("api/"):
            body = {"source": form["source"], "version": 10**20 if name == "big-id" else form["version"]}
            answers.append(("POST", client.post(url, json.dumps(body), content_type="application/json", **auth)))
        elif not route.startswith("admin/"):  # the admin refuses anyone but staff before reading anything
            answers.append(("POST", client.post(url, form, **auth)))
        for method, response in answers:
            if response.status_code >= 500:
                failures.append(f"{method} {url[:160]} ({name}): {response.status_code}")
        if route == "accounts/logout/":
            client.force_login(user)
    assert failures == [], "\n".join(failures[:40])


@pytest.mark.parametrize(
    "url",
    [
        "/?q=a%00b",
        "/?tag=a%00b",
        "/?difficulty=a%00b",
        "/users/a%00b/",
        "/leaderboard/?tag=a%00b",
        "/submissions/?kind=a%00b",
        "/?q=%FF%FE",
    ],
)
def test_a_nul_byte_or_text_that_is_not_utf8_is_a_400_page_of_the_site(learner_client, bank, url):
    response = learner_client.get(url)
    assert response.status_code == 400 and b'id="site-nav"' in response.content
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert learner_client.get(url, HTTP_ACCEPT="application/json").json()["error"]


def test_ids_past_64_bits_find_nothing(instructor_client, bank):
    assert instructor_client.get(f"/courses/{'9' * 20}/").status_code == 404
    assert instructor_client.get(f"/courses/{'9' * 20}/assignments/1/gradebook/").status_code == 404
    compare = instructor_client.get(f"/submissions/compare/?id=1&id={'9' * 20}")
    assert compare.status_code == 400 and b"Choose exactly two attempts" in compare.content


def test_a_preview_of_a_draft_that_is_not_a_uuid_is_a_404(instructor_client, bank):
    assert instructor_client.post("/authoring/preview/?draft=not-a-uuid", {}).status_code == 404


def test_a_path_beyond_ascii_is_read_as_text_not_refused(learner_client, bank):
    # `é` and U+0084 are UTF-8: they name nothing here (a 404), they are not unreadable (a 400);
    # the API validates a slug's form itself (a 422, as its schema documents)
    assert learner_client.get("/users/jos%C3%A9/").status_code == 404
    api = learner_client.get("/api/v1/problems/%C2%84")
    assert api.status_code == 422 and api["Content-Type"].startswith("application/json")


def test_the_api_refuses_unreadable_input_in_its_own_json_whatever_the_client_accepts(learner_client, bank):
    # 422 with the API's error body, as its schema documents for input it refuses
    response = learner_client.get("/api/v1/problems?tag=a%00b")
    assert response.status_code == 422 and response.json() == {
        "code": "invalid_request",
        "message": "The request cannot be read: a NUL byte in the query string.",
    }


def test_a_nul_byte_in_a_multipart_form_is_a_400_before_any_view(learner_client, learner, bank, broker):
    from webplatform.explorer.models import Exploration
    from webplatform.explorer.views import EXAMPLE

    form = {"source": EXAMPLE, "function": "mlp", "args": "f32[4,4]", "budget": "", "problem": "checkpoint\x00dot"}
    # The test client posts a dict as multipart/form-data, as a browser posts a form with a file.
    for fields in (form, {**form, "problem": "", "function": "m\x00lp"}, {**form, "problem": "", "budget_on": "\x00"}):
        response = learner_client.post("/explore/", fields)
        assert response.status_code == 400 and b'id="site-nav"' in response.content
    assert not Exploration.objects.exists()
    # The same form without them is taken.
    assert learner_client.post("/explore/", {**form, "problem": ""}).status_code == 302


def test_a_multipart_body_without_a_boundary_is_a_400_not_a_500(learner_client):
    """A body whose Content-Type says multipart but gives no boundary (the API fuzzer sends one) was
    read by the check for NUL bytes and raised: a 500. It is a 400, on the pages and on the API."""
    for path in ("/explore/", "/api/v1/explorations"):
        response = learner_client.post(path, data=b'{"source": "0"}', content_type="multipart/form-data")
        assert response.status_code == 400, (path, response.status_code)
    api = learner_client.post(
        "/api/v1/explorations", data=b"{}", content_type="multipart/form-data", HTTP_ACCEPT="application/json"
    )
    assert api.json()["code"] == "invalid_request" and "not well formed" in api.json()["message"]
