"""The course pages' scripts in headless Chromium: a time shown before the site knows the reader's
zone reads as the server then writes it (one format on every page); the assignment form's search
keeps a ticked problem in view and hides the rest that do not match."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from webplatform.courses import services

from .courses import make_class
from .helpers import signed_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def klass(bank, make_user):
    return make_class(bank, make_user)


def test_a_time_reads_the_same_before_and_after_the_site_knows_the_zone(live_browser, live_server, klass):
    now = timezone.now()
    week = services.save_assignment(
        course=klass.course,
        title="Week 2",
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=3),
        late_until=None,
        late_penalty_percent=0,
        problems=[klass.a],
    )
    page = signed_in(live_browser, live_server, klass.ada, timezone_id="America/New_York").new_page()
    page.goto(f"{live_server.url}/courses/{klass.course.pk}/assignments/{week.pk}/")
    due = page.locator("#deadlines time").nth(1)
    before = due.inner_text()  # written by the script, in the browser's zone
    page.reload()  # the zone's cookie is set: the server writes it now
    after = due.inner_text()
    assert before == after and after.endswith(("EST", "EDT"))


def test_the_problem_search_hides_what_does_not_match_and_keeps_what_is_ticked(live_browser, live_server, klass):
    page = signed_in(live_browser, live_server, klass.instructor).new_page()
    page.goto(f"{live_server.url}/courses/{klass.course.pk}/assignments/new/")
    page.locator("#problem-list label:has-text('Checkpoint every layer')").click()
    listed = page.locator("#problem-list li[data-search]").count()  # every problem an assignment may hold
    assert listed >= 26
    page.locator("#problem-search").fill("named value")
    expect(page.locator("#problem-search-count")).to_have_text(f"3 of {listed} shown")
    visible = page.locator("#problem-list li[data-search]:visible > label")  # the problem's, not its weight's
    expect(visible).to_have_count(3)
    assert {text.split(" (")[0] for text in visible.all_inner_texts()} == {
        "Checkpoint every layer",
        "Save one named value",
        "Dots and one named value",
    }
    expect(page.locator("#problem-list li.choice-section:visible")).to_have_count(2)
    page.locator("#problem-search").press("Enter")  # filters, never submits the assignment
    expect(page.locator("#save-assignment")).to_be_visible()
    assert page.url.endswith("/assignments/new/")
