"""The gradebook's CSV as a registrar or a learning platform takes it: each learner's name (their
username when they gave none), username, e-mail and student id, under the columns Canvas's
gradebook import matches students by and Moodle's CSV import maps; the student id typed by the
course's instructor on the roster, or sent by the platform (LTI's lis.person_sourcedid, at a
launch and in a roster sync). Read back with the csv module, as an importer reads it."""

import csv
import io

import pytest
from django.urls import reverse
from lti_tool.models import LtiUser

from webplatform.courses import services
from webplatform.courses.models import Membership
from webplatform.lti import services as lti

from . import test_lti
from .courses import make_class
from .test_lti import Browser, place_assignment

# The LTI tests' fixtures: their platform, and the cache the launches share with the live server.
platform, shared_cache = test_lti.platform, test_lti.shared_cache

CANVAS_AND_MOODLE = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "username", "email"]


@pytest.fixture
def klass(bank, make_user):
    return make_class(bank, make_user)


def student_id_url(klass, user):
    return reverse("courses:student_id", args=[klass.course.pk, user.pk])


def exported(client, klass) -> list[list[str]]:
    response = client.get(reverse("courses:gradebook_csv", args=[klass.course.pk, klass.assignment.pk]))
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.content.decode())))


@pytest.mark.django_db
def test_the_csv_names_each_learner_with_their_student_id_in_columns_canvas_and_moodle_read(klass, client):
    klass.ada.first_name, klass.ada.last_name, klass.ada.email = "Ada", "Lovelace", "ada@school.example"
    klass.ada.save()
    client.force_login(klass.instructor)
    assert client.post(student_id_url(klass, klass.ada), {"student_id": "  20261001 "}).status_code == 302
    assert client.post(student_id_url(klass, klass.grace), {"student_id": "@42"}).status_code == 302

    header, *rows = exported(client, klass)
    assert header[: len(CANVAS_AND_MOODLE)] == CANVAS_AND_MOODLE
    assert f"{klass.a.title}: points" in header and header[-7:-4] == ["points", "out of", "percent"]
    learners = {row[header.index("username")]: dict(zip(header, row)) for row in rows}
    assert set(learners) == {"ada", "grace"}
    ada, grace = learners["ada"], learners["grace"]
    assert (ada["Student"], ada["SIS User ID"], ada["email"]) == ("Ada Lovelace", "20261001", "ada@school.example")
    # No name given: the username, so that no row is nameless; an id a spreadsheet would run is text.
    assert (grace["Student"], grace["SIS User ID"], grace["email"]) == ("grace", "'@42", "")
    for row in (ada, grace):  # the platform's own columns, left for it
        assert (row["ID"], row["SIS Login ID"], row["Section"]) == ("", "", "")
    assert all(len(row) == len(header) for row in rows)

    # The gradebook's search finds a learner by student id.
    book = client.get(reverse("courses:gradebook", args=[klass.course.pk, klass.assignment.pk]), {"q": "2026100"})
    assert 'data-user="ada"' in book.content.decode()


@pytest.mark.django_db
def test_the_roster_sets_and_clears_a_student_id_and_says_why_it_refuses_one(klass, client, make_user):
    client.force_login(klass.instructor)
    page = client.get(reverse("courses:detail", args=[klass.course.pk])).content.decode()
    assert f'id="student-id-{klass.ada.pk}"' in page
    client.post(student_id_url(klass, klass.ada), {"student_id": "A-17"})
    assert 'value="A-17"' in client.get(reverse("courses:detail", args=[klass.course.pk])).content.decode()

    refused = [
        ({"student_id": "x" * 65}, "at most 64 characters"),
        ({"student_id": "A-17\tB"}, "no tabs, line breaks"),
        ({}, "sent no student id"),
    ]
    for form, why in refused:
        response = client.post(student_id_url(klass, klass.ada), form)
        assert response.status_code == 400 and why in response.content.decode(), form
    assert Membership.objects.get(course=klass.course, user=klass.ada).student_id == "A-17"

    assert client.post(student_id_url(klass, klass.ada), {"student_id": ""}).status_code == 302
    assert Membership.objects.get(course=klass.course, user=klass.ada).student_id == ""

    # Someone not on the roster, a learner of the course, and a stranger: nothing to find.
    assert client.post(student_id_url(klass, make_user("eve")), {"student_id": "1"}).status_code == 404
    for outsider in (klass.grace, make_user("mallory")):
        client.force_login(outsider)
        assert client.post(student_id_url(klass, klass.ada), {"student_id": "1"}).status_code == 404
    assert Membership.objects.get(course=klass.course, user=klass.ada).student_id == ""


@pytest.mark.django_db
def test_an_archived_course_keeps_its_student_ids(klass, client):
    services.archive_course(course=klass.course, archived=True)
    client.force_login(klass.instructor)
    response = client.post(student_id_url(klass, klass.ada), {"student_id": "9"})
    assert response.status_code == 400 and "archived" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_launch_and_a_roster_sync_fill_the_student_id_the_platform_sends(platform, live_server, bank, broker):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-1", "Sam Student").sourcedid = "SIS-0001"
    Browser().open(platform.launch_url("s-1", placed))
    sam = LtiUser.objects.get(sub="s-1").auth_user
    assert Membership.objects.get(course=course, user=sam).student_id == "SIS-0001"

    platform.state.people["s-1"].sourcedid = "SIS-0002"  # the registrar corrected it
    platform.person("s-2", "Ada Lovelace").sourcedid = "SIS-0003"
    assert lti.sync_roster(course_id=course.pk).status == "done"
    assert Membership.objects.get(course=course, user=sam).student_id == "SIS-0002"
    ada = LtiUser.objects.get(sub="s-2").auth_user
    assert Membership.objects.get(course=course, user=ada).student_id == "SIS-0003"
