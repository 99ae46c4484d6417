"""A label on another value, graded and read as a learner reads it in Debian's headless Chromium:
the marked row of each residual table says, under the row on a phone, which value of the learner's
code the statement names, and neither table needs a sideways scroll at 390 px. Screenshots at 390
and 1366 px (``UPDATE_SCREENSHOTS=1`` writes them into docs/screenshots)."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from ..e2e.browser import SCREENSHOTS
from .helpers import signed_in
from .test_phone_fit_browser import SCROLLING

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
NAMES = "checkpoint_names"
LABEL_ON_PRODUCT = ROOT / "problems" / NAMES / "submissions" / "policy_violation" / "label_on_product.py"


def test_both_tables_mark_the_label_and_fit_a_phone(live_browser, live_server, learner, bank, broker):
    page = signed_in(live_browser, live_server, learner, viewport={"width": 390, "height": 844}).new_page()
    page.goto(live_server.url + f"/problems/{NAMES}/")
    page.evaluate("(text) => window.rematEditor.setText(text)", LABEL_ON_PRODUCT.read_text())
    page.locator("#submit-button").click()
    expect(page.locator("#status")).to_have_text("queued")
    submitted = Submission.objects.filter(user=learner).latest("pk")
    grade_submission.apply(args=[submitted.pk], task_id=f"label-{submitted.pk}")  # what the worker does

    page.goto(live_server.url + f"/submissions/{submitted.pk}/")
    expect(page.locator("#verdict")).to_have_text("policy_violation")
    yours = page.locator("#residual-table tr.offending + tr.why-row")
    theirs = page.locator("#required-residual-table tr.offending + tr.why-row")
    expect(yours).to_have_count(1)
    expect(yours).to_contain_text("your label 'hidden' is on the matrix product `x @ w1`")
    expect(theirs).to_have_count(1)
    expect(theirs).to_contain_text("the statement's 'hidden': the tanh at line 8 of your code")
    page.locator("#required-residual-table").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "verdict_label_390.png"))
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate(SCROLLING) == []

    page.set_viewport_size({"width": 1366, "height": 900})  # a laptop: the reasons in their columns
    expect(page.locator("#required-residual-table tr.offending td.why")).to_be_visible()
    assert page.evaluate(SCROLLING) == []
    page.locator("#residual-table").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "verdict_label_1366.png"))
