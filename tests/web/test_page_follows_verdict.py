"""The problem page follows the verdict, in Debian's headless Chromium against the site this
process serves: a learner submits a right answer and, without a reload, the status arrives on the
event stream, the title gets its tick, the solution opens, "next problem" links to the next one on
the track and the recent attempts list the new one; an earlier attempt loads back into the editor."""

import pytest
from playwright.sync_api import expect

from judge.packages.track import load_track
from webplatform.submissions import services
from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from .helpers import BANK, correct_source, no_checkpoint_source, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DOT = "checkpoint_dot_policy"


def test_an_accepted_submission_opens_the_solution_and_the_next_problem_without_a_reload(
    live_browser, live_server, learner, bank, broker
):
    earlier = services.create_submission(user=learner, problem=bank[DOT], source=no_checkpoint_source(), kind="submit")
    grade_submission.apply(args=[earlier.pk], task_id="earlier")
    page = signed_in(live_browser, live_server, learner).new_page()
    streams = []
    page.on("request", lambda request: streams.append(request.url) if "/events/" in request.url else None)
    page.goto(live_server.url + f"/problems/{DOT}/")
    expect(page.locator("#solution-locked")).to_be_visible()
    expect(page.locator("#next-problem")).to_have_count(0)
    page.evaluate("window.__samePage = true")

    page.evaluate("(text) => window.rematEditor.setText(text)", correct_source())
    page.locator("#submit-button").click()
    expect(page.locator("#status")).to_have_text("queued")
    submitted = Submission.objects.filter(user=learner).latest("pk")
    grade_submission.apply(args=[submitted.pk], task_id="submitted")  # what the worker does

    expect(page.locator("#status")).to_have_text("accepted", timeout=30_000)
    assert streams == [live_server.url + f"/submissions/{submitted.pk}/events/"]  # pushed, not polled
    expect(page.locator("#problem-title .solved")).to_have_text("✓ solved")
    expect(page.locator("#solution-locked")).to_have_count(0)
    expect(page.locator("#solution #reference")).to_contain_text("def ")
    following = bank[load_track(BANK).next_problem(DOT)]
    next_link = page.locator("#next-problem a")
    expect(next_link).to_have_text(following.current_version.title)
    expect(next_link).to_have_attribute("href", f"/problems/{following.slug}/")
    expect(page.locator(f'#recent tr[data-attempt="{submitted.pk}"]')).to_contain_text("accepted")
    assert page.evaluate("window.__samePage") is True  # no reload happened

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(f'#recent tr[data-attempt="{earlier.pk}"] .load-attempt').click()
    expect(page.locator("#attempt-loaded")).to_have_text(f"Attempt {earlier.pk} is in the editor.")
    assert page.evaluate("window.rematEditor.getText()") == no_checkpoint_source()


def test_without_a_stream_the_page_still_reaches_the_verdict_by_polling(
    live_browser, live_server, learner, bank, broker
):
    context = signed_in(live_browser, live_server, learner)
    context.add_init_script("delete window.EventSource;")  # an old browser, or a proxy that buffers
    page = context.new_page()
    page.goto(live_server.url + f"/problems/{DOT}/")
    page.evaluate("(text) => window.rematEditor.setText(text)", correct_source())
    page.locator("#submit-button").click()
    expect(page.locator("#status")).to_have_text("queued")
    submitted = Submission.objects.filter(user=learner).latest("pk")
    grade_submission.apply(args=[submitted.pk], task_id="polled")
    expect(page.locator("#status")).to_have_text("accepted", timeout=30_000)
    expect(page.locator("#next-problem a")).to_be_visible()
