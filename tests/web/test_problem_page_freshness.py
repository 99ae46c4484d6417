"""The problem page remembers its problem between views (catalog.selectors.get_problem), yet
shows every change on the very next view: a new version published, a problem retired or made
public, a learner joining or leaving the course a problem is kept for."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from webplatform.catalog.models import Problem
from webplatform.catalog.selectors import get_problem
from webplatform.catalog.services import make_public, sync_problems

from .helpers import DOT_POLICY, copy_package

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(tmp_path, bank):
    """A problem of its own, synced from a folder the test may change and sync again."""
    folder = copy_package(DOT_POLICY, tmp_path, "fresh_page", title='"The first title"')
    sync_problems(root=tmp_path, retire_missing=False)
    return {"folder": folder, "root": tmp_path, "url": reverse("practice:problem_detail", args=["fresh_page"])}


def test_a_new_version_shows_on_the_next_view(learner_client, published):
    page = learner_client.get(published["url"]).content.decode()
    assert "The first title" in page and 'name="version" value="1"' in page
    toml = published["folder"] / "problem.toml"
    toml.write_text(toml.read_text().replace('"The first title"', '"The second title"'))
    statement = published["folder"] / "statement.md"
    statement.write_text(statement.read_text() + "\nA sentence added in version two.\n")
    sync_problems(root=published["root"], retire_missing=False)
    page = learner_client.get(published["url"]).content.decode()
    assert "The second title" in page and "The first title" not in page
    assert "A sentence added in version two." in page and 'name="version" value="2"' in page


def test_a_retired_problem_is_gone_on_the_next_view(learner_client, published):
    assert learner_client.get(published["url"]).status_code == 200
    problem = Problem.objects.get(slug="fresh_page")
    problem.is_active = False
    problem.save()
    assert learner_client.get(published["url"]).status_code == 404


def test_a_course_problem_follows_joining_leaving_and_being_made_public(
    learner_client, learner, other_learner, published
):
    course = Group.objects.create(name="a course")
    problem = Problem.objects.get(slug="fresh_page")
    assert learner_client.get(published["url"]).status_code == 200  # remembered while public
    problem.audience = course
    problem.save()
    assert learner_client.get(published["url"]).status_code == 404
    learner.groups.add(course)
    assert learner_client.get(published["url"]).status_code == 200
    learner.groups.remove(course)
    assert learner_client.get(published["url"]).status_code == 404
    outsider = Client()  # not pytest-django's ``client``: that one is learner_client
    outsider.force_login(other_learner)
    assert outsider.get(published["url"]).status_code == 404
    make_public(problem=problem)
    assert outsider.get(published["url"]).status_code == 200


def test_each_caller_gets_a_problem_of_its_own(learner, published):
    first = get_problem(slug="fresh_page", user=learner)
    first.title = "changed by one request"
    first.current_version.title = "changed too"
    again = get_problem(slug="fresh_page", user=learner)
    assert again.title == "The first title" and again.current_version.title == "The first title"
    assert again.current_version.files  # the package files, left out of the page's read, still load
