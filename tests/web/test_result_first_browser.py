"""Issue 23, the page part, in Debian's headless Chromium against the site this process serves: on a
phone, after Submit the status comes into view and the verdict's heading takes the focus when it
arrives (not from a learner who went back to typing); "Cancel" is gone, and out of the keyboard's
reach, after the verdict; the result opens with its cause, above the fold on a laptop, and the Cases
table has no blank bands on a phone. Screenshots of an accepted result, a policy_violation, a wrong
answer and an inspection at 390 px and 1366 px (``UPDATE_SCREENSHOTS=1`` writes them into docs/screenshots)."""

import pytest
from playwright.sync_api import expect

from webplatform.submissions import services
from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from ..e2e.browser import SCREENSHOTS
from .helpers import correct_source, no_checkpoint_source, signed_in, wrong_answer_source

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DOT = "checkpoint_dot_policy"
PHONE = {"width": 390, "height": 844}


def _send(page, learner, button="#submit-button"):
    page.locator(button).click()
    expect(page.locator("#status")).to_have_text("queued")
    return Submission.objects.filter(user=learner).latest("pk")


def _grade(submission):
    grade_submission.apply(args=[submission.pk], task_id=f"first-{submission.pk}")  # what the worker does


def test_on_a_phone_the_status_comes_into_view_and_the_verdict_takes_the_focus(
    live_browser, live_server, learner, bank, broker
):
    page = signed_in(live_browser, live_server, learner, viewport=PHONE).new_page()
    page.goto(live_server.url + f"/problems/{DOT}/")
    page.evaluate("(text) => window.rematEditor.setText(text)", no_checkpoint_source())
    submitted = _send(page, learner)
    expect(page.locator("#result .status-line")).to_be_in_viewport()  # something visibly changed
    cancel = page.locator("#cancel-button")
    expect(cancel).to_be_visible()  # while it is graded it can be cancelled

    _grade(submitted)
    expect(page.locator("#status")).to_have_text("policy_violation", timeout=30_000)
    heading = page.locator("#verdict-heading")
    expect(heading).to_be_focused()
    expect(heading).to_be_in_viewport()
    expect(page.locator("#cause")).to_be_in_viewport()  # the cause comes with it, not 5000 px below
    # after the verdict "Cancel" is gone: out of sight and out of the keyboard's reach
    expect(cancel).to_be_hidden()
    assert page.evaluate("getComputedStyle(document.getElementById('cancel-button')).display") == "none"
    page.locator("#result-link").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") != "cancel-button"

    # a learner who goes back to typing while it is graded keeps the editor's focus
    again = _send(page, learner)
    page.locator("#editor .cm-content").click()
    page.keyboard.type("# still typing")
    _grade(again)
    expect(page.locator("#status")).to_have_text("policy_violation", timeout=30_000)
    assert page.evaluate("document.activeElement.closest('#editor') !== null")


def _graded(learner, problem, source, kind):
    submission = services.create_submission(user=learner, problem=problem, source=source, kind=kind)
    _grade(submission)
    return submission


def test_the_result_opens_with_its_cause_and_the_cases_table_has_no_blank_bands(
    live_browser, live_server, learner, bank, broker
):
    shown = {
        "result_accepted": _graded(learner, bank[DOT], correct_source(), "submit"),
        "result_policy_violation": _graded(learner, bank[DOT], no_checkpoint_source(), "submit"),
        "result_inspection": _graded(learner, bank[DOT], no_checkpoint_source(), "inspect"),
        "result_wrong_answer": _graded(learner, bank[DOT], wrong_answer_source(), "submit"),
    }
    for width, height in ((1366, 900), (390, 844)):
        context = signed_in(live_browser, live_server, learner, viewport={"width": width, "height": height})
        page = context.new_page()
        for name, submission in shown.items():
            page.goto(live_server.url + f"/submissions/{submission.pk}/")
            lead = page.locator("#message")
            expect(lead).to_be_visible()
            if name == "result_wrong_answer":  # a wrong answer opens with what differs, then where to look
                expect(page.locator("#cause")).to_contain_text("Your function computes another value than the")
                expect(page.locator("#cause")).to_contain_text("Try: a checkpoint never changes what is computed")
            if width == 1366:  # above the fold on a laptop: the verdict, its cause and what to try
                assert lead.bounding_box()["y"] + lead.bounding_box()["height"] <= height, name
            page.screenshot(path=str(SCREENSHOTS / f"{name}_{width}.png"))
            sideways = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            assert sideways <= 0, (name, width)
            cases = page.locator("table.cases")
            if cases.count():
                table = cases.bounding_box()
                assert cases.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth + 1"), name
                for cell in cases.locator("td.case-message").all():  # across the table: no column of blank bands
                    assert abs(cell.bounding_box()["width"] - table["width"]) <= 2, (name, width)
        context.close()
    inspection = shown["result_inspection"]
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + f"/submissions/{inspection.pk}/")
    expect(page.locator("#status")).to_have_text("Inspection finished")
    expect(page.locator("main")).not_to_contain_text("verdict page")
    color = page.evaluate("getComputedStyle(document.getElementById('verdict')).backgroundColor")
    assert color != page.evaluate("getComputedStyle(document.querySelector('.verdict-block')).color")
    assert "179, 38, 30" not in color  # not the error colour (--bad-bg)
