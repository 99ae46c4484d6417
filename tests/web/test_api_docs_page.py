"""``/api/docs`` is a page of the site: the viewport a phone needs (without it a phone draws 980 px
and shrinks them), the site's bar and styles, and a link back to the site; Swagger UI draws every
operation inside it, and at 390 px nothing is wider than the screen (Debian's headless Chromium;
a screenshot at 390 px in var/screenshots, or docs/screenshots with ``UPDATE_SCREENSHOTS=1``)."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from ..e2e.browser import SCREENSHOTS
from .helpers import signed_in

DOCS = "/api/docs"


@pytest.mark.django_db
def test_the_docs_page_has_the_viewport_the_site_styles_and_a_way_back(client, learner):
    for who in (None, learner):
        if who is not None:
            client.force_login(who)
        response = client.get(DOCS)
        assert response.status_code == 200
        html = response.content.decode()
        assert re.search(r'<meta name="viewport" content="width=device-width, initial-scale=1">', html)
        assert "/static/arena/arena.css" in html and "/static/arena/api-docs.css" in html
        back = re.search(r'<a href="([^"]+)" id="back-to-site">', html)
        assert back and back.group(1) == reverse("practice:problem_list")
        assert 'id="topbar"' in html  # the site's bar: problems, leaderboard, account
        assert 'id="swagger-settings"' in html and "/static/ninja/swagger-ui-bundle" in html
    assert reverse("tokens:list") in html  # signed in: their tokens, a link away


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_docs_fit_a_phone_and_lead_back_to_the_site(live_browser, live_server, learner):
    page = signed_in(live_browser, live_server, learner, viewport={"width": 390, "height": 844}).new_page()
    page.goto(live_server.url + DOCS)
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Remat Arena API", timeout=30_000)
    expect(page.locator(".opblock-summary-path").first).to_be_visible(timeout=30_000)
    assert page.evaluate("window.innerWidth") == 390  # the viewport: not 980 px shrunk
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator(".opblock-summary").first.click()  # an operation opened still fits
    expect(page.locator(".opblock-body").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator(".opblock").first.screenshot(path=str(SCREENSHOTS / "api_docs_390_operation.png"))
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOTS / "api_docs_390.png"))
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(SCREENSHOTS / "api_docs_390_dark.png"))
    page.click("#back-to-site")
    page.wait_for_url(live_server.url + reverse("practice:problem_list"))
