"""A verdict page and the problem page with recent attempts fit a phone (390 px) in Debian's headless
Chromium: the page never scrolls sideways, and nothing in it needs its own sideways scroll to be read:
why a residual is marked reads under its row, the memory picture is scaled to the width, the recent
attempts are a list. Screenshots at 390 px and 1366 px (``UPDATE_SCREENSHOTS=1`` writes them into
docs/screenshots)."""

import pytest
from playwright.sync_api import expect

from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from ..e2e.browser import SCREENSHOTS
from .helpers import no_checkpoint_source, signed_in, wrong_answer_source

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DOT = "checkpoint_dot_policy"
PHONE = {"width": 390, "height": 844}
# The boxes of a result and of the attempts that scroll sideways in their own box, wider than the screen
# (a statement's wide table may: it is the author's).
SCROLLING = """() => [...document.querySelectorAll('.scroll-x')]
    .filter((box) => box.querySelector('#residual-table, #required-residual-table, .memory-picture, #recent'))
    .filter((box) => box.offsetParent !== null && box.scrollWidth > box.clientWidth + 1)
    .map((box) => (box.firstElementChild || box).outerHTML.slice(0, 120))"""


def _submit(page, learner, source):
    page.evaluate("(text) => window.rematEditor.setText(text)", source)
    page.locator("#submit-button").click()
    expect(page.locator("#status")).to_have_text("queued")
    submitted = Submission.objects.filter(user=learner).latest("pk")
    grade_submission.apply(args=[submitted.pk], task_id=f"fit-{submitted.pk}")  # what the worker does
    expect(page.locator("#status")).not_to_have_text("queued", timeout=30_000)
    return submitted


def _fits(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert page.evaluate(SCROLLING) == []


def test_a_verdict_page_and_the_recent_attempts_fit_a_phone(live_browser, live_server, learner, bank, broker):
    page = signed_in(live_browser, live_server, learner, viewport=PHONE).new_page()
    page.goto(live_server.url + f"/problems/{DOT}/")
    _submit(page, learner, wrong_answer_source())
    violation = _submit(page, learner, no_checkpoint_source())
    expect(page.locator("#status")).to_have_text("policy_violation", timeout=30_000)

    page.goto(live_server.url + f"/problems/{DOT}/")  # the problem page, with its recent attempts
    attempts = page.locator("#recent")
    expect(attempts.locator("tbody tr")).to_have_count(2)
    _fits(page)
    # a list: each attempt's verdict and why on a line of its own, under its number and kind
    first = attempts.locator("tbody tr").first
    verdict, number = first.locator("td").nth(3).bounding_box(), first.locator("td").nth(1).bounding_box()
    assert verdict["y"] > number["y"] and verdict["width"] > 300
    attempts.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "recent_attempts_390.png"))

    page.goto(live_server.url + f"/submissions/{violation.pk}/")
    expect(page.locator("#verdict")).to_have_text("policy_violation")
    page.locator("#residual-table").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "verdict_residuals_390.png"))
    _fits(page)
    marked = page.locator("#residual-table tr.offending").first
    why = page.locator("#residual-table tr.offending + tr.why-row").first
    expect(why).to_be_visible()
    expect(why).to_contain_text("Why it is marked: the dots_with_no_batch_dims_saveable policy recomputes this")
    expect(marked.locator("td.why")).to_be_hidden()  # under the row, not in a column beside it
    assert why.bounding_box()["y"] > marked.bounding_box()["y"]
    picture = page.locator("svg#memory-yours")
    box, screen = picture.bounding_box(), page.viewport_size["width"]
    assert 0 < box["x"] and box["x"] + box["width"] <= screen  # scaled to the width, all of it in view
    picture.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "verdict_memory_390.png"))

    page.set_viewport_size({"width": 1366, "height": 900})  # a laptop: the reason in its column again
    _fits(page)
    expect(marked.locator("td.why")).to_be_visible()
    expect(why).to_be_hidden()
    page.locator("#residual-table").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "verdict_residuals_1366.png"))
    page.goto(live_server.url + f"/problems/{DOT}/")
    expect(page.locator("#recent thead")).to_be_visible()  # a table where there is room
    page.locator("#recent").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "recent_attempts_1366.png"))
