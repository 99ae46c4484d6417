"""An instructor's token reads and runs the courses they teach, as the course pages do: their
courses, assignments, roster, gradebook, similarity report (what it left out too) and check, and
the learners' extensions. The rule is the pages': a course the token's owner does not teach is a
404 on every operation, whether it is another instructor's or the learner's own course, and a
learner's token gets 403 on the list."""

from datetime import timedelta

import httpx
import pytest

from webplatform.courses import services
from webplatform.courses.models import Membership, SimilarityCheck
from webplatform.courses.tasks import check_similarity
from webplatform.submissions.models import Submission

from .api import api_for
from .courses import make_class
from .test_courses_similarity import ADA, GRACE, submitted

pytestmark = pytest.mark.django_db


@pytest.fixture
def klass(bank, make_user):
    klass = make_class(bank, make_user)
    services.set_student_id(course=klass.course, user=klass.ada, student_id="S-1001")
    # both joined before the assignment opened; ada solved A on the second day, grace copied her
    # code (renamed) and was accepted on the third
    Membership.objects.filter(course=klass.course).update(joined_at=klass.day(0))
    klass.ada_a = submitted(klass.ada, klass.a, ADA)
    klass.grace_a = submitted(klass.grace, klass.a, GRACE)
    Submission.objects.filter(pk=klass.ada_a.pk).update(created_at=klass.day(1))
    Submission.objects.filter(pk=klass.grace_a.pk).update(created_at=klass.day(2))
    services.refresh_standings(assignment=klass.assignment)
    return klass


def paths(klass) -> list[str]:
    course, assignment = klass.course.pk, klass.assignment.pk
    return [
        f"/courses/{course}",
        f"/courses/{course}/assignments",
        f"/courses/{course}/assignments/{assignment}",
        f"/courses/{course}/roster",
        f"/courses/{course}/assignments/{assignment}/gradebook",
        f"/courses/{course}/assignments/{assignment}/similarity",
        f"/courses/{course}/assignments/{assignment}/extensions",
        f"/courses/{course}/submissions/{klass.ada_a.pk}",
    ]


def test_an_instructor_reads_their_course_its_roster_and_gradebook(klass, client):
    api = api_for(client, klass.instructor)
    listed = api.get("/courses").json()["courses"]
    assert [c["id"] for c in listed] == [klass.course.pk] and listed[0]["title"] == "Memory for autodiff"
    course = api.get(f"/courses/{klass.course.pk}").json()
    week = course["assignments"][0]
    assert week["title"] == "Week 1" and week["late_penalty_percent"] == 30 and week["points_possible"] == 2
    assert [p["slug"] for p in week["problems"]] == ["checkpoint_dot_policy", "checkpoint_names"]
    assert week["similarity_base"] == {"base": "", "excludes_starter": True, "excludes_reference": True}

    members = api.get(f"/courses/{klass.course.pk}/roster").json()["members"]
    ada = next(m for m in members if m["username"] == "ada")
    assert ada["role"] == "learner" and ada["student_id"] == "S-1001" and ada["active"]
    assert {m["username"]: m["role"] for m in members}["iris"] == "instructor"

    book = api.get(f"/courses/{klass.course.pk}/assignments/{klass.assignment.pk}/gradebook").json()
    assert book["learners"] == 2
    row = next(r for r in book["rows"] if r["username"] == "ada")
    assert row["student_id"] == "S-1001" and row["solved"] == 1 and row["points"] == 1 and row["out_of"] == 2
    first = row["cells"][0]
    assert first["problem"] == "checkpoint_dot_policy" and first["verdict"] == "accepted"
    assert first["submission_id"] == klass.ada_a.pk and not first["late"]
    assert row["cells"][1]["verdict"] is None
    found = api.get(f"/courses/{klass.course.pk}/assignments/{klass.assignment.pk}/gradebook", q="S-1001").json()
    assert [r["username"] for r in found["rows"]] == ["ada"]

    mine = api.get(f"/courses/{klass.course.pk}/submissions/{klass.ada_a.pk}").json()
    assert mine["source"] == ADA and mine["verdict"] == "accepted"


def test_an_instructor_runs_a_similarity_check_with_a_base_and_sets_extensions(klass, client):
    api = api_for(client, klass.instructor)
    where = f"/courses/{klass.course.pk}/assignments/{klass.assignment.pk}"
    base = api.put(f"{where}/similarity/base", {"base": "def helper():\n    return 1\n", "excludes_reference": False})
    assert base.status_code == 200
    assert api.put(f"{where}/similarity/base", [None, None]).status_code == 422  # not an object: nothing saved
    assert api.put(f"{where}/similarity/base", {"base": "", "excludes_starter": 0}).status_code == 422
    assert base.json() == {
        "base": "def helper():\n    return 1\n",
        "excludes_starter": True,
        "excludes_reference": False,
    }
    started = api.post(f"{where}/similarity", {})
    assert started.status_code == 202 and started.json()["latest_status"] == "queued"
    assert check_similarity(SimilarityCheck.objects.get().pk) == "done"
    report = api.get(f"{where}/similarity").json()
    assert report["latest_status"] == "done" and report["submissions"] == 2
    top = report["pairs"][0]
    assert {top["first"]["username"], top["second"]["username"]} == {"ada", "grace"} and top["similarity"] > 0.9
    left_out = {(e["problem"], e["what"]) for e in report["excluded"]}
    assert ("", "base file") in left_out and ("checkpoint_dot_policy", "starter code") in left_out
    assert ("checkpoint_dot_policy", "reference solution") not in left_out  # unticked

    later = klass.assignment.due_at + timedelta(days=3)
    given = api.put(f"{where}/extensions/{klass.grace.pk}", {"due_at": later.isoformat()})
    assert given.status_code == 200
    assert api.get(f"{where}/extensions").json()["extensions"][0]["username"] == "grace"
    row = next(r for r in api.get(f"{where}/gradebook").json()["rows"] if r["username"] == "grace")
    assert row["extended_due_at"] is not None
    naive = api.put(f"{where}/extensions/{klass.grace.pk}", {"due_at": "2026-02-01T10:00:00"})
    assert naive.status_code == 422 and naive.json()["code"] == "invalid_request"
    assert api.put(f"{where}/extensions/{klass.instructor.pk}", {"due_at": later.isoformat()}).status_code == 404
    assert api.put(f"{where}/extensions/{klass.grace.pk}", {"due_at": None}).json() == {"extensions": []}
    before = api.put(f"{where}/extensions/{klass.grace.pk}", {"due_at": "2025-01-01T00:00:00+00:00"})
    assert before.status_code == 409 and "opening" in before.json()["message"]
    assert api.put(f"{where}/similarity/base", {"base": "x = '\ud800'"}).status_code == 422


@pytest.mark.parametrize("who", ["another course's instructor", "a learner of the course"])
def test_a_course_not_taught_is_a_404_on_every_operation(klass, client, make_user, who):
    if who == "a learner of the course":
        caller = klass.ada
    else:
        caller = make_user("ivan", instructor=True)
        services.create_course(user=caller, title="Another course")
    api = api_for(client, caller)
    for path in paths(klass):
        response = api.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"
    where = f"/courses/{klass.course.pk}/assignments/{klass.assignment.pk}"
    assert api.post(f"{where}/similarity", {}).status_code == 404
    assert api.put(f"{where}/similarity/base", {"base": "x = 1"}).status_code == 404
    assert api.put(f"{where}/extensions/{klass.grace.pk}", {"due_at": None}).status_code == 404
    klass.assignment.refresh_from_db()
    assert klass.assignment.similarity_base == "" and not klass.assignment.similarity_checks.exists()
    listed = api.get("/courses")
    if who == "a learner of the course":
        assert listed.status_code == 403 and listed.json()["code"] == "not_an_instructor"
    else:
        assert [c["title"] for c in listed.json()["courses"]] == ["Another course"]


def test_without_a_token_the_courses_ask_for_one(klass, client):
    for path in ["/courses", *paths(klass)]:
        assert client.get(f"/api/v1{path}").status_code == 401


@pytest.fixture
def connection_kept():
    """As Django's test client does: a request through the WSGI application must not close the
    connection that holds the test's transaction (on PostgreSQL it would, and the next query meets
    a closed connection)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def test_the_arena_client_reads_and_runs_the_course(klass, capsys, monkeypatch, connection_kept):
    """The ``arena`` client against the site's own WSGI application: its course methods and the
    ``arena gradebook`` and ``arena similarity`` commands."""
    from django.core.wsgi import get_wsgi_application

    from arena import cli
    from arena.client import ArenaError, Client
    from webplatform.api.services import create_token

    def site(user) -> Client:
        token = create_token(user=user, name="client").token
        return Client("http://testserver", token, transport=httpx.WSGITransport(app=get_wsgi_application()))

    course, assignment = klass.course.pk, klass.assignment.pk
    with site(klass.instructor) as arena:
        assert [c["id"] for c in arena.courses()] == [course]
        assert arena.assignment(course, assignment)["title"] == "Week 1"
        assert {m["username"] for m in arena.roster(course)} == {"iris", "ada", "grace"}
        saved = arena.set_similarity_base(course, assignment, "def helper():\n    return 1\n")
        assert saved["base"].startswith("def helper")
        assert arena.check_similarity(course, assignment)["latest_status"] == "queued"
        later = klass.assignment.due_at + timedelta(days=2)
        assert arena.set_extension(course, assignment, klass.ada.pk, later)[0]["username"] == "ada"
        assert arena.course_submission(course, klass.ada_a.pk)["verdict"] == "accepted"
    check_similarity(SimilarityCheck.objects.get().pk)

    monkeypatch.setattr(cli, "_client", lambda: site(klass.instructor))
    assert cli.main(["gradebook", str(course), str(assignment)]) == 0
    printed = capsys.readouterr().out
    assert "S-1001" in printed and "accepted" in printed and "1/2" in printed
    assert cli.main(["similarity", str(course), str(assignment)]) == 0
    printed = capsys.readouterr().out
    assert "every problem: base file (2 lines)" in printed and "ada" in printed and "grace" in printed

    with site(klass.ada) as arena, pytest.raises(ArenaError) as refused:
        arena.gradebook(course, assignment)
    assert refused.value.status == 404
