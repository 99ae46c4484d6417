"""What a person does on the pages, in Debian's headless Chromium against the site this process
serves: the keyboard reaches the editor in two skips and leaves it as the page says, the
shortcuts run and submit, a refusal counts down and links to the latest attempt, the menu folds
on a phone, the authoring form proposes the slug and leads to each error, the dark theme and
reduced motion follow the system."""

import re

import pytest
from playwright.sync_api import expect

from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from .helpers import signed_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PROBLEM = "/problems/checkpoint_dot_policy/"
ACTIVE = """() => { const e = document.activeElement;
  return {id: e.id, text: e.textContent.trim(), cls: e.className, label: e.getAttribute("aria-label"),
          described: (e.getAttribute("aria-describedby") || "").split(" ").filter(Boolean)
                       .map((id) => document.getElementById(id).textContent).join(" ")}; }"""


def test_the_keyboard_reaches_the_editor_in_two_skips_and_leaves_it_with_escape_then_tab(
    live_browser, live_server, learner, bank
):
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + PROBLEM)
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE)["text"] == "Skip to main content"
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE)["text"] == "Skip to the editor"
    page.keyboard.press("Enter")
    editor = page.evaluate(ACTIVE)
    assert "cm-content" in editor["cls"] and editor["label"] == "Your code"
    assert "press Esc then Tab" in editor["described"] and "Ctrl+Enter runs the samples" in editor["described"]
    page.keyboard.press("Tab")  # indents: the focus stays
    assert "cm-content" in page.evaluate(ACTIVE)["cls"]
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE)["id"] == "run-button"


def test_the_shortcuts_run_and_submit_and_a_refused_run_counts_down_to_the_next(
    live_browser, live_server, learner, bank, broker, settings
):
    settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "RUNS_PER_MINUTE": 1}
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + PROBLEM)
    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+Enter")
    expect(page.locator("#status")).to_have_text("queued")
    run = Submission.objects.get(user=learner)
    assert run.kind == "run"
    grade_submission.apply(args=[run.pk], task_id="run")  # what the worker does
    expect(page.locator("#result-body .verdict-block")).to_be_visible(timeout=30_000)
    expect(page.locator("#result-link")).to_have_attribute("href", f"/submissions/{run.pk}/")

    page.keyboard.press("Control+Enter")  # the second run of the minute: refused
    notice = page.locator("#refusal")
    expect(notice).to_be_visible()
    expect(notice.locator(".reason")).to_have_text(re.compile("^You have run the samples once in the last minute"))
    expect(notice.locator(".latest a")).to_have_attribute("href", f"/submissions/{run.pk}/")
    first = int(notice.locator(".countdown").text_content())
    expect(notice.locator(".countdown")).not_to_have_text(str(first), timeout=3000)
    assert int(notice.locator(".countdown").text_content()) < first <= 60
    expect(page.locator("#run-button")).to_be_disabled()
    expect(page.locator("#submit-button")).to_be_enabled()  # "Submit" has its own limit

    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+Shift+Enter")
    expect(page.locator("#status")).to_have_text("queued")
    assert [s.kind for s in Submission.objects.filter(user=learner).order_by("pk")] == ["run", "submit"]


def test_the_menu_folds_on_a_phone(live_browser, live_server, learner, bank):
    page = signed_in(live_browser, live_server, learner, viewport={"width": 390, "height": 844}).new_page()
    page.goto(live_server.url + "/")
    menu, history = page.locator("#menu-button"), page.locator("#site-nav a", has_text="My submissions")
    expect(history).to_be_hidden()
    expect(menu).to_have_attribute("aria-expanded", "false")
    menu.click()
    expect(history).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(history).to_be_hidden()
    assert page.evaluate(ACTIVE)["id"] == "menu-button"
    page.set_viewport_size({"width": 1366, "height": 900})
    expect(history).to_be_visible()
    expect(menu).to_be_hidden()


def test_the_authoring_form_proposes_the_slug_and_leads_to_each_error(live_browser, live_server, instructor):
    page = signed_in(live_browser, live_server, instructor).new_page()
    page.goto(live_server.url + "/authoring/new/")
    title, slug = page.locator("#id_title"), page.locator("#id_slug")
    title.fill("Keep the tanh, and only it!")
    expect(slug).to_have_value("keep_the_tanh_and_only_it")
    slug.fill("tanh_only")  # the author's own: the title no longer moves it
    title.fill("Keep the tanh")
    expect(slug).to_have_value("tanh_only")

    title.fill("")
    slug.fill("")
    page.locator("#save-button").click()
    summary = page.locator("#error-summary")
    expect(summary).to_be_focused()
    expect(summary.locator("li")).to_have_count(3)
    summary.locator("a", has_text="Entry point").click()
    expect(page.locator("#id_entry_function")).to_be_focused()


def test_the_dark_theme_and_reduced_motion_follow_the_system(live_browser, live_server, learner, bank):
    looks = """() => ({background: getComputedStyle(document.body).backgroundColor,
                       blink: getComputedStyle(document.querySelector(".cm-cursorLayer")).animationDuration})"""
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + PROBLEM)
    assert page.evaluate(looks) == {"background": "rgb(244, 246, 248)", "blink": "1.2s"}
    calm = signed_in(live_browser, live_server, learner, color_scheme="dark", reduced_motion="reduce").new_page()
    calm.goto(live_server.url + PROBLEM)
    found = calm.evaluate(looks)
    assert found["background"] == "rgb(17, 20, 24)" and float(found["blink"].rstrip("s")) < 0.001
