"""LTI 1.3 against a real platform implementation (tests/lti_platform.py: lti1p3platform, keys
generated here): a deep linking launch places an assignment with its line item, learners launch
it and become site users of the course, and their score arrives at the platform, retried while
the platform refuses it, sent once however often the task runs."""

import html
import re
import uuid
from datetime import timedelta

import pytest
import requests
from django.core.management import call_command
from django.utils import timezone
from lti_tool.models import LtiRegistration, LtiUser

from webplatform.courses import services as courses
from webplatform.courses.models import Membership
from webplatform.lti import services
from webplatform.lti.models import AssignmentLink, CourseContext, ScoreReport

from ..lti_platform import Platform
from .scenario import graded

pytestmark = pytest.mark.django_db(transaction=True)
SELF_POSTING = re.compile(r'<form[^>]*action="([^"]*)"[^>]*id="(?:autopost|deep-link-return)"[^>]*>(.*?)</form>', re.S)
FIELD = re.compile(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', re.I)


@pytest.fixture(autouse=True)
def shared_cache(settings):
    # The launch's state and nonce wait in Django's cache between redirects; here the tool runs in
    # this process (live_server), so its memory is shared enough.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def platform(live_server, bank, broker):
    platform = Platform()
    options = platform.registration_options
    call_command(
        "lti_register",
        name="Test platform",
        site_url=live_server.url,
        issuer=options["issuer"],
        client_id=options["client_id"],
        auth_url=options["auth_url"],
        token_url=options["token_url"],
        keyset_url=options["keyset_url"],
        deployment_id=[options["deployment_id"]],
        stdout=open("/dev/null", "w"),
    )
    registration = LtiRegistration.objects.get(issuer=platform.url)
    platform.start(tool_url=live_server.url, login_path=f"/lti/login/{registration.uuid}/")
    yield platform
    platform.stop()


class Browser:
    """A person's browser, as far as LTI needs one: cookies, redirects, and the pages that post
    themselves (the platform's launch form, the tool's deep linking answer, pylti1p3's check that
    cookies work, which a browser's script passes by reloading with ``lti1p3_new_window``)."""

    def __init__(self):
        self.session = requests.Session()

    def open(self, url: str) -> requests.Response:
        return self.settle(self.session.get(url, timeout=30))

    def settle(self, response):
        for _ in range(10):
            text = response.text
            if "lti1p3-warning-msg" in text:
                response = self.session.get(response.url + "&lti1p3_new_window=1", timeout=30)
            elif 'id="autopost"' in text or 'id="deep-link-return"' in text:
                action, body = SELF_POSTING.search(text).groups()
                fields = {name: html.unescape(value) for name, value in FIELD.findall(body)}
                response = self.session.post(html.unescape(action), data=fields, timeout=30)
            else:
                return response
        raise AssertionError("a page kept posting itself")

    def until_launch(self, url: str) -> tuple[str, dict]:
        """Follows a launch up to the platform's form that posts the id_token to the tool and
        returns it unposted (action, fields): what someone who captured it holds."""
        response = self.session.get(url, timeout=30)
        for _ in range(10):
            if "lti1p3-warning-msg" in response.text:
                response = self.session.get(response.url + "&lti1p3_new_window=1", timeout=30)
                continue
            action, body = SELF_POSTING.search(response.text).groups()
            action, fields = html.unescape(action), {name: html.unescape(value) for name, value in FIELD.findall(body)}
            if action.endswith("/lti/launch/"):
                return action, fields
            response = self.session.post(action, data=fields, timeout=30)
        raise AssertionError("no launch came")

    def post_launch(self, action: str, fields: dict) -> requests.Response:
        return self.settle(self.session.post(action, data=fields, timeout=30))

    def signed_in(self, site: str) -> bool:
        return self.session.get(f"{site}/submissions/", allow_redirects=False, timeout=30).status_code == 200

    def post_form(self, url: str, data: dict) -> requests.Response:
        page = self.session.get(url, timeout=30)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        return self.settle(
            self.session.post(url, data={"csrfmiddlewaretoken": token, **data}, headers={"Referer": url}, timeout=30)
        )


def place_assignment(platform, live_server, bank, weights=None) -> tuple:
    """The instructor's deep linking launch, an assignment made for it (``weights``: {bank
    name: weight typed on the form}), the link placed."""
    teacher = Browser()
    platform.person("t-1", "Tess Teacher", instructor=True)
    chooser = teacher.open(platform.deep_link_url("t-1"))
    assert chooser.url.endswith("/lti/deep-link/") and "no assignment yet" in chooser.text
    course = CourseContext.objects.get().course
    opens = timezone.localtime() - timedelta(hours=1)
    made = teacher.post_form(
        f"{live_server.url}/courses/{course.pk}/assignments/new/",
        {
            "title": "LTI week",
            "opens_at": opens.strftime("%Y-%m-%dT%H:%M"),
            "due_at": (opens + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M"),
            "late_penalty_percent": "0",
            "problems": [str(bank["checkpoint_dot_policy"].pk), str(bank["checkpoint_names"].pk)],
            **{f"weight-{bank[name].pk}": value for name, value in (weights or {}).items()},
        },
    )
    assert made.status_code == 200, made.text[-2000:]
    assignment = course.assignments.get()
    placed = teacher.post_form(f"{live_server.url}/lti/deep-link/", {"assignment": str(assignment.pk)})
    assert "Placed 1 activity" in placed.text
    return course, assignment, platform.state.placed[0]


def test_deep_link_launch_and_a_score_that_arrives(platform, live_server, bank, broker):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    assert placed.custom == {"assignment_id": str(assignment.pk)} and placed.title == "LTI week"
    assert platform.state.lineitems[placed.lineitem_id]["scoreMaximum"] == 2
    assert Membership.objects.get(course=course, user__lti_users__sub="t-1").role == "instructor"

    learner = Browser()
    platform.person("s-1", "Sam Student")
    page = learner.open(platform.launch_url("s-1", placed))
    assert page.url.endswith(f"/courses/{course.pk}/assignments/{assignment.pk}/") and "LTI week" in page.text
    user = LtiUser.objects.get(sub="s-1").auth_user
    assert (user.first_name, user.email) == ("Sam Student", "s-1@school.example") and not user.has_usable_password()
    assert Membership.objects.get(course=course, user=user).role == "learner"
    link = AssignmentLink.objects.get()
    assert link.lineitem_url == f"{platform.url}/lineitems/{placed.lineitem_id}"

    # A second launch is the same person.
    Browser().open(platform.launch_url("s-1", placed))
    assert LtiUser.objects.get(sub="s-1").auth_user == user

    graded(user, bank["checkpoint_dot_policy"], "accepted")
    report = ScoreReport.objects.get()
    assert (report.score_given, report.score_maximum, report.state) == (1.0, 2.0, "pending")
    assert [m["args"] for m in broker.messages("cpu.background") if m["task"] == "lti.send_score"] == [[report.pk]]

    assert services.send_score(report_id=report.pk) == "sent"
    (score,) = platform.state.scores[placed.lineitem_id]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == ("s-1", 1.0, 2.0)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    # Idempotent: the same message again sends nothing new.
    assert services.send_score(report_id=report.pk) == "already"
    assert len(platform.state.scores[placed.lineitem_id]) == 1


def test_a_weighted_assignment_is_out_of_its_weights_on_the_platform(platform, live_server, bank, broker):
    course, assignment, placed = place_assignment(
        platform, live_server, bank, weights={"checkpoint_dot_policy": "3", "checkpoint_names": "1"}
    )
    assert platform.state.lineitems[placed.lineitem_id]["scoreMaximum"] == 4
    platform.person("s-9", "Wes Weighted")
    Browser().open(platform.launch_url("s-9", placed))
    graded(LtiUser.objects.get(sub="s-9").auth_user, bank["checkpoint_dot_policy"], "accepted")
    report = ScoreReport.objects.get()
    assert services.send_score(report_id=report.pk) == "sent"
    (score,) = platform.state.scores[placed.lineitem_id]
    assert (score["scoreGiven"], score["scoreMaximum"]) == (3.0, 4.0)


def test_a_score_the_platform_refuses_is_tried_again_later_until_it_is_taken(platform, live_server, bank, broker):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-2", "Ria Retry")
    Browser().open(platform.launch_url("s-2", placed))
    user = LtiUser.objects.get(sub="s-2").auth_user
    platform.state.refuse_scores = 2
    graded(user, bank["checkpoint_names"], "accepted")
    report = ScoreReport.objects.get()
    broker.client.flushdb()
    assert services.send_score(report_id=report.pk) == "retrying"
    report.refresh_from_db()
    assert report.attempts == 1 and "503" in report.last_error and report.state == "pending"
    (message,) = broker.messages("cpu.background")
    assert message["task"] == "lti.send_score" and message["eta"] is not None  # published again, later
    assert services.send_score(report_id=report.pk) == "retrying"
    report.refresh_from_db()
    assert report.attempts == 2 and report.next_try_at > timezone.now() + timedelta(seconds=15)
    assert services.send_score(report_id=report.pk) == "sent"
    assert [s["scoreGiven"] for s in platform.state.scores[placed.lineitem_id]] == [1.0]


def test_a_lost_message_is_published_again_by_the_sweep(platform, live_server, bank, broker):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-3", "Lou Lost")
    Browser().open(platform.launch_url("s-3", placed))
    graded(LtiUser.objects.get(sub="s-3").auth_user, bank["checkpoint_names"], "accepted")
    report = ScoreReport.objects.get()
    broker.client.flushdb()  # the broker lost it
    assert services.sweep_scores() == []  # not overdue yet
    assert services.sweep_scores(now=timezone.now() + timedelta(minutes=5)) == [report.pk]
    assert [m["args"] for m in broker.messages("cpu.background")] == [[report.pk]]


def test_a_link_copied_to_another_course_opens_nothing_and_forged_launches_are_refused(platform, live_server, bank):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-4", "Eve Forger")
    placed.custom = {"assignment_id": str(assignment.pk + 1000)}
    page = Browser().open(platform.launch_url("s-4", placed))
    assert page.status_code == 404 and "opens nothing here" in page.text
    # An id token signed by another key than the platform's: refused, nobody logged in.
    forged = requests.post(f"{live_server.url}/lti/launch/", data={"id_token": "a.b.c", "state": "state-x"}, timeout=30)
    assert forged.status_code == 400 and "could not be verified" in forged.text


def test_a_launch_works_once_and_a_captured_one_signs_nobody_in(platform, live_server, bank):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-5", "Vic Victim")
    victim = Browser()
    action, fields = victim.until_launch(platform.launch_url("s-5", placed))
    page = victim.post_launch(action, fields)
    assert page.url.endswith(f"/courses/{course.pk}/assignments/{assignment.pk}/") and victim.signed_in(live_server.url)

    # The same launch posted again, by the same browser or by another: refused, nobody signed in.
    again = victim.post_launch(action, fields)
    assert again.status_code == 400 and "used already" in again.text and 'id="site-nav"' in again.text
    thief = Browser()
    stolen = thief.post_launch(action, fields)
    assert stolen.status_code == 400 and not thief.signed_in(live_server.url)


def test_a_captured_id_token_posted_with_another_browsers_own_login_is_refused(platform, live_server, bank):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-6", "Vic Victim")
    platform.person("s-7", "Mal Attacker")
    victim, attacker = Browser(), Browser()
    action, captured = victim.until_launch(platform.launch_url("s-6", placed))
    # The attacker starts a login of their own (their state, their cookie), then posts the
    # victim's token in place of theirs.
    _, own = attacker.until_launch(platform.launch_url("s-7", placed))
    transplanted = attacker.post_launch(action, {**captured, "state": own["state"]})
    assert transplanted.status_code == 400 and "another login" in transplanted.text
    assert not attacker.signed_in(live_server.url)
    assert not LtiUser.objects.filter(sub="s-6").exists()
    # The victim's own launch still works: the refusal spent nothing of theirs.
    page = victim.post_launch(action, captured)
    assert page.url.endswith(f"/courses/{course.pk}/assignments/{assignment.pk}/") and victim.signed_in(live_server.url)


def test_a_login_for_a_registration_that_does_not_exist_is_a_refusal_in_the_sites_layout(live_server, bank):
    url = f"{live_server.url}/lti/login/{uuid.uuid4()}/"
    params = {
        "iss": "https://lms.example",
        "login_hint": "x",
        "target_link_uri": f"{live_server.url}/lti/launch/",
        "lti1p3_new_window": "1",
    }
    first_step = {key: value for key, value in params.items() if key != "lti1p3_new_window"}
    for response in (
        requests.get(url, params=params, timeout=30),
        requests.post(url, data=params, timeout=30),
        requests.get(url, params=first_step, timeout=30),
    ):
        assert response.status_code == 404 and "login was refused" in response.text and 'id="site-nav"' in response.text
    missing_target = requests.get(url, params={"iss": "x", "login_hint": "y"}, timeout=30)
    assert missing_target.status_code == 400 and 'id="site-nav"' in missing_target.text


def test_a_login_with_the_wrong_issuer_for_its_registration_is_a_400(platform, live_server):
    registration = LtiRegistration.objects.get()
    response = requests.get(
        f"{live_server.url}/lti/login/{registration.uuid}/",
        timeout=30,
        params={
            "iss": "https://another.example",
            "login_hint": "x",
            "target_link_uri": f"{live_server.url}/lti/launch/",
            "lti1p3_new_window": "1",
        },
    )
    assert response.status_code == 400 and "login was refused" in response.text and 'id="site-nav"' in response.text


def test_an_archived_course_takes_no_new_learner_from_the_platform_and_keeps_its_own(platform, live_server, bank):
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-7", "Ada Early")
    assert Browser().open(platform.launch_url("s-7", placed)).status_code == 200
    courses.archive_course(course=course, archived=True)
    platform.person("s-8", "Lee Late")
    late = Browser().open(platform.launch_url("s-8", placed))
    assert late.status_code == 409 and "This course is archived" in late.text
    again = Browser().open(platform.launch_url("s-7", placed))  # a member comes back: read-only pages
    assert again.status_code == 200 and Membership.objects.filter(course=course).count() == 2


def test_claims_no_database_stores_and_ids_in_other_digits_are_refused(platform, live_server, bank, monkeypatch):
    from .. import lti_platform

    course, assignment, placed = place_assignment(platform, live_server, bank)
    # A signed custom parameter in digits that are not ASCII names no assignment (str.isdigit()
    # takes "1²", int() does not).
    platform.person("s-8", "Una Digits")
    placed.custom = {"assignment_id": f"{assignment.pk}\u00b2"}
    page = Browser().open(platform.launch_url("s-8", placed))
    assert page.status_code == 404 and "opens nothing here" in page.text
    placed.custom = {"assignment_id": str(assignment.pk)}

    def refused(sub: str) -> None:
        browser = Browser()
        page = browser.open(platform.launch_url(sub, placed))
        assert page.status_code == 400 and "cannot store" in page.text and 'id="site-nav"' in page.text
        assert not browser.signed_in(live_server.url)

    platform.person("s-9", "Nul\x00 Name")
    refused("s-9")
    platform.person("s-10", "Lone \ud800 Surrogate")
    refused("s-10")
    platform.person("s-11", "Sub Nul").sub = "s-11\x00"  # the claim, not the login's hint
    refused("s-11")
    # (a NUL is no value PostgreSQL can even be asked about: the refused sub is looked for without it)
    assert not LtiUser.objects.filter(sub__in=["s-9", "s-10", "s-11"]).exists()
    assert not LtiUser.objects.filter(sub__startswith="s-11").exists()
    with monkeypatch.context() as patch:
        patch.setitem(lti_platform.CONTEXT, "title", "Remat\x00 101")
        refused("s-8")
    link = placed.resource_link_id
    placed.resource_link_id = f"{link}\x00"
    refused("s-8")
    placed.resource_link_id = link
    # The same launch without them works.
    page = Browser().open(platform.launch_url("s-8", placed))
    assert page.url.endswith(f"/courses/{course.pk}/assignments/{assignment.pk}/")
