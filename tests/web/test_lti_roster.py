"""Roster sync over LTI Names and Role Provisioning, against the suite's platform
(tests/lti_platform.py: lti1p3platform's NRPS handler behind HTTP, a token from its token
endpoint, pages linked by ``Link: rel="next"``): the launch stores the memberships endpoint, "Sync
the roster" queues the task on the background lane, the task adds, updates and marks as left,
and a roster that cannot be read whole changes nothing and says why on the course page."""

import pytest
from django.urls import reverse
from lti_tool.models import LtiContext, LtiUser

from webplatform.courses import services as courses
from webplatform.courses.models import Membership, Standing
from webplatform.lti import tasks
from webplatform.lti.models import RosterSync
from webplatform.submissions.models import Submission

from . import test_lti
from .scenario import graded
from .test_lti import Browser, place_assignment

# The LTI tests' fixtures: their platform, and the cache the launches share with the live server.
platform, shared_cache = test_lti.platform, test_lti.shared_cache

pytestmark = pytest.mark.django_db(transaction=True)


def member(course, sub):
    return Membership.objects.filter(course=course, user__lti_users__sub=sub).first()


def course_page(client, course) -> str:
    return client.get(reverse("courses:detail", args=[course.pk])).content.decode()


@pytest.fixture
def linked(platform, live_server, bank, broker, client):
    """A course made by the instructor's launch, with a learner who launched once, and the
    instructor's browser on the site (Django's test client)."""
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-1", "Sam Student")
    Browser().open(platform.launch_url("s-1", placed))
    client.force_login(LtiUser.objects.get(sub="t-1").auth_user)
    return course, assignment, placed


def sync_now(client, course, broker):
    """The instructor's button, then the task its message names, as the background worker runs it."""
    broker.client.flushdb()
    response = client.post(reverse("lti:sync_roster", args=[course.pk]))
    assert response.status_code == 302
    (message,) = [m for m in broker.messages("cpu.background") if m["task"] == "lti.sync_roster"]
    return tasks.sync_roster(*message["args"])


def test_a_sync_adds_updates_and_marks_as_left_reading_every_page(platform, linked, client, broker, bank):
    course, assignment, placed = linked
    context = LtiContext.objects.get()
    assert context.memberships_url == platform.memberships_url  # stored from the launch, as written
    assert "Sync the roster" in course_page(client, course)
    platform.person("s-2", "Ada Lovelace")
    platform.person("s-3", "Grace Hopper")
    platform.person("t-2", "Tim Assistant", instructor=True)
    platform.state.people["s-1"].name = "Samantha Student"
    platform.state.people["s-1"].email = "samantha@school.example"

    assert sync_now(client, course, broker) == "done"
    # 5 people, 2 a page: 3 pages, each with the platform's token for the NRPS scope
    assert [page for page, _ in platform.state.roster_reads] == [1, 2, 3]
    assert all(auth.startswith("Bearer ") for _, auth in platform.state.roster_reads)
    assert (member(course, "s-2").role, member(course, "s-3").role, member(course, "t-2").role) == (
        "learner",
        "learner",
        "instructor",
    )
    ada = LtiUser.objects.get(sub="s-2").auth_user
    assert (ada.first_name, ada.last_name, ada.email) == ("Ada", "Lovelace", "s-2@school.example")
    sam = member(course, "s-1").user
    assert (sam.first_name, sam.email) == ("Samantha", "samantha@school.example")
    page = course_page(client, course)
    assert "3 added, 1 updated, 0 left" in page and "Ada Lovelace" in page and "Samantha Student" in page
    # A member the roster made launches in as the same site user.
    Browser().open(platform.launch_url("s-2", placed))
    assert LtiUser.objects.get(sub="s-2").auth_user == ada and Membership.objects.filter(user=ada).count() == 1

    # Grace solves a problem, then leaves the platform course; Ada is listed as inactive.
    graded(member(course, "s-3").user, bank["checkpoint_dot_policy"], "accepted")
    platform.state.off_roster.add("s-3")
    platform.state.roster_status["s-2"] = "Inactive"
    assert sync_now(client, course, broker) == "done"
    grace = member(course, "s-3")
    assert not grace.active and not member(course, "s-2").active and member(course, "s-1").active
    assert Submission.objects.filter(user=grace.user).count() == 1  # nothing of theirs deleted
    assert Standing.objects.filter(user=grace.user, assignment=assignment).get().score == 1.0
    page = course_page(client, course)
    assert (
        "0 added, 0 updated, 2 left" in page
        and 'data-user="%s" data-role="learner" data-active="no"' % (grace.user.username) in page
    )
    book = client.get(reverse("courses:gradebook", args=[course.pk, assignment.pk])).content.decode()
    assert f'data-user="{grace.user.username}" data-left="yes"' in book  # still graded, marked
    # A learner who left loses the course's pages.
    client.force_login(grace.user)
    assert client.get(reverse("courses:detail", args=[course.pk])).status_code == 404

    # Idempotent: the same roster again changes nothing.
    client.force_login(LtiUser.objects.get(sub="t-1").auth_user)
    assert sync_now(client, course, broker) == "done"
    assert "nothing changed" in course_page(client, course)
    assert Membership.objects.filter(course=course).count() == 5

    # While away, her standing stays as it was; back on the roster, she is active again and
    # what she submitted meanwhile counts.
    graded(grace.user, bank["checkpoint_names"], "accepted")
    assert Standing.objects.get(user=grace.user, assignment=assignment).score == 1.0
    platform.state.off_roster.clear()
    assert sync_now(client, course, broker) == "done"
    assert member(course, "s-3").active
    assert Standing.objects.get(user=grace.user, assignment=assignment).score == 2.0
    assert RosterSync.objects.filter(course=course).first().updated == [f"Grace Hopper ({grace.user.username})"]


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("down", "the platform answered 503 for page 1 of the roster"),
        ("revoked", "the platform answered 401 for page 1 of the roster"),
        ("not_json", "page 2 of the roster is not JSON"),
        ("elsewhere", "next roster page is on another site (elsewhere.example)"),
    ],
)
def test_a_roster_that_cannot_be_read_whole_changes_nothing_and_the_page_says_why(
    platform, linked, client, broker, fault, said
):
    course, _, _ = linked
    platform.person("s-2", "Ada Lovelace")
    platform.person("s-3", "Grace Hopper")
    platform.state.off_roster.add("s-1")  # were the read believed, Sam would be marked as left
    platform.state.roster_fault = fault
    before = sorted(Membership.objects.filter(course=course).values_list("user", "role", "inactive_since"))
    assert sync_now(client, course, broker) == "failed"
    assert sorted(Membership.objects.filter(course=course).values_list("user", "role", "inactive_since")) == before
    page = course_page(client, course)
    assert said in page and "Nothing was changed" in page
    if fault == "elsewhere":
        assert [p for p, _ in platform.state.roster_reads] == [1]  # the token went nowhere else
    # Once the platform is well again, the same button works.
    platform.state.roster_fault = ""
    assert sync_now(client, course, broker) == "done"
    assert not member(course, "s-1").active and member(course, "s-2").active


def test_a_token_the_platform_refuses_is_said_and_changes_nothing(platform, linked, client, broker):
    course, _, _ = linked
    platform.state.people.clear()  # an empty roster: believed, it would mark everyone as left
    platform.state.refuse_tokens = True
    assert sync_now(client, course, broker) == "failed"
    page = course_page(client, course)
    assert "refused an access token for its roster (401: " in page and "access was withdrawn" in page
    assert platform.state.roster_reads == []
    assert Membership.objects.filter(course=course, inactive_since__isnull=False).count() == 0


def test_the_courses_last_instructor_stays_and_archived_or_unlinked_courses_are_not_synced(
    platform, linked, client, broker, make_user
):
    course, _, _ = linked
    platform.state.off_roster.add("t-1")  # the only instructor is not listed
    assert sync_now(client, course, broker) == "done"
    assert member(course, "t-1").active and member(course, "t-1").role == "instructor"
    assert "the course&#x27;s last instructor" in course_page(client, course)

    courses.archive_course(course=course, archived=True)
    refused = client.post(reverse("lti:sync_roster", args=[course.pk]), follow=True).content.decode()
    assert "This course is archived" in refused and 'id="sync-roster"' not in refused
    # The task for an archived course (a message sent before it was archived) changes nothing.
    platform.state.off_roster.add("s-1")
    assert tasks.sync_roster(course.pk) == "failed" and member(course, "s-1").active

    teacher = make_user("iris", instructor=True)
    own = courses.create_course(user=teacher, title="Taught here")
    client.force_login(teacher)
    assert 'id="roster-sync"' not in course_page(client, own)
    assert client.post(reverse("lti:sync_roster", args=[own.pk])).status_code == 302
    assert not RosterSync.objects.filter(course=own).exists()
    # A learner of the course cannot ask for a sync: the course's instructors' page is a 404 to them.
    client.force_login(member(course, "s-1").user)
    assert client.post(reverse("lti:sync_roster", args=[course.pk])).status_code == 404
