"""In Debian's headless Chromium at 390 px: staff make a learner an instructor on their page, and
an instructor types a learner's student id on the roster; both pages fit the screen and pass
axe-core in both themes (screenshots in var/screenshots, or docs/screenshots with
``UPDATE_SCREENSHOTS=1``)."""

import pytest
from playwright.sync_api import expect

from webplatform.courses import selectors
from webplatform.courses.models import Membership

from ..e2e.browser import SCREENSHOTS
from .courses import make_class
from .helpers import signed_in
from .test_every_page import COLOUR_RULES, measure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def fits_and_passes(page, shot: str) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        seen = measure(page, COLOUR_RULES if scheme == "dark" else None)
        assert seen.sideways_px <= 0 and seen.violations == [] and seen.in_layout, (scheme, seen)
        page.screenshot(path=str(SCREENSHOTS / f"{shot}_390_{scheme}.png"), full_page=True)
    page.emulate_media(color_scheme="light")


def test_staff_make_an_instructor_on_a_phone(live_browser, live_server, make_user):
    boss = make_user("boss")
    boss.is_staff = True
    boss.save()
    grace = make_user("grace")
    page = signed_in(live_browser, live_server, boss, viewport=PHONE).new_page()
    page.goto(live_server.url + "/courses/")
    page.click("#site-instructors")
    page.fill("#id_identifier", "grace")
    page.click("#grant-instructor")
    expect(page.locator("p.flash")).to_contain_text("grace is an instructor now")
    expect(page.locator('#instructors tr[data-user="grace"]')).to_be_visible()
    assert selectors.holds_instructor_role(grace)
    fits_and_passes(page, "site_instructors")


def test_an_instructor_types_a_student_id_on_the_roster_on_a_phone(live_browser, live_server, bank, make_user):
    klass = make_class(bank, make_user)
    page = signed_in(live_browser, live_server, klass.instructor, viewport=PHONE).new_page()
    page.goto(f"{live_server.url}/courses/{klass.course.pk}/")
    page.fill(f"#student-id-{klass.ada.pk}", "20261001")
    page.locator('#roster tr[data-user="ada"] .student-id button').click()
    expect(page.locator("p.flash")).to_contain_text("ada's student id is 20261001")
    expect(page.locator(f"#student-id-{klass.ada.pk}")).to_have_value("20261001")
    assert Membership.objects.get(course=klass.course, user=klass.ada).student_id == "20261001"
    fits_and_passes(page, "course_roster")
