"""The tool's side of LTI Dynamic Registration as a platform's administrator sees it, in Debian's
headless Chromium: the page a platform opens in its frame says the tool is registered and with which
client id, fits a phone and a laptop; the same URL opened outside a platform says where to open it.
Screenshots at 390 and 1366 px for docs/instructors/lti.md (``UPDATE_SCREENSHOTS=1`` writes them)."""

import pytest
from lti_tool.models import LtiRegistration
from playwright.sync_api import expect

from ..e2e.browser import SCREENSHOTS
from .helpers import signed_in
from .test_lti_dynamic_registration import platform, registration_url, shared_cache  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1366, "height": 900}


def _fits(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def test_the_registration_page_says_what_was_registered_on_a_phone_and_a_laptop(platform, live_server, live_browser):  # noqa: F811
    url = registration_url(live_server)
    page = signed_in(live_browser, live_server, None, viewport=LAPTOP).new_page()

    page.goto(url)  # opened by hand, not by a platform: where to open it instead
    expect(page.locator("main")).to_contain_text("Register this tool from your learning platform")
    assert not LtiRegistration.objects.exists()

    page.goto(platform.registration_url(url))  # as the platform's frame opens it
    card = page.locator("#lti-registered")
    expect(card.locator("h1")).to_have_text("Remat Arena is registered")
    registration = LtiRegistration.objects.get()
    expect(page.locator("#lti-client-id")).to_have_text(registration.client_id)
    expect(card).to_contain_text("Canvas: turn the new developer key on; Moodle: activate the tool")
    _fits(page)
    page.screenshot(path=str(SCREENSHOTS / "lti_registered_1366.png"))
    page.set_viewport_size(PHONE)
    _fits(page)
    expect(card.locator("h1")).to_be_in_viewport()
    page.screenshot(path=str(SCREENSHOTS / "lti_registered_390.png"))
