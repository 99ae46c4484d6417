"""A learner presses "Inspect" in Debian's headless Chromium against the site this process serves:
the page shows, without a reload and without a verdict, what the code saves, its checkpoints, the
operations of both passes and the memory picture; then the learner fixes the code, inspects
again and sees the checkpoint and its recomputation. Screenshots at 390 px and 1366 px
(``UPDATE_SCREENSHOTS=1`` writes them into docs/screenshots)."""

import re

import pytest
from playwright.sync_api import expect

from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from ..e2e.browser import SCREENSHOTS, type_into_editor
from .helpers import correct_source, no_checkpoint_source, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PROBLEM = "/problems/checkpoint_dot_policy/"


def inspect(page, learner, source):
    type_into_editor(page, source)
    page.locator("#inspect-button").click()
    expect(page.locator("#status")).to_have_text("queued")
    latest = Submission.objects.filter(user=learner).latest("pk")
    assert latest.kind == "inspect"
    grade_submission.apply(args=[latest.pk], task_id=f"inspect-{latest.pk}")  # what the worker does
    expect(page.locator("#result-body #verdict")).to_have_text("Inspection finished", timeout=30_000)
    # not a verdict, and not dressed as one: no "done", no error colour, no "verdict page" (issue 23)
    expect(page.locator("#status")).to_have_text("Inspection finished")
    expect(page.locator("#status")).to_have_class("status inspected")
    expect(page.locator("#result-link")).to_have_text("open the inspection")
    return latest


def test_a_learner_inspects_sees_what_the_code_saves_and_the_picture_then_fixes_it(
    live_browser, live_server, learner, bank, broker
):
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + PROBLEM)
    expect(page.locator("#inspect-button")).to_have_accessible_description(
        "Inspect shows what your code saves for the backward pass, its checkpoints and its memory, without a "
        "verdict and without counting as a submission."
    )
    inspect(page, learner, no_checkpoint_source())
    body = page.locator("#result-body")
    expect(body.locator("#residual-table")).to_contain_text(
        "jax.nn.relu(x @ w1)` (relu)"
    )  # saved: no checkpoint, in their terms
    expect(body.locator("#required-residual-table")).to_have_count(0)
    picture = body.locator("svg#memory-yours")
    expect(picture).to_be_visible()
    expect(picture.locator("title").first).to_have_text("Your gradient step's memory")
    expect(picture.locator("text", has_text="forward")).to_have_count(1)
    expect(picture).to_have_accessible_name("Your gradient step's memory")
    expect(picture).to_have_accessible_description(
        re.compile(
            r"^Live bytes over one gradient step: the forward pass "
            r"in \d+ operations, then the backward pass in \d+\."
        )
    )
    expect(body.locator("#memory-text")).to_contain_text("The backward pass recomputes 0 operations.")
    page.set_viewport_size({"width": 1366, "height": 900})
    body.locator("#memory-title").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "inspect_1366.png"))

    inspect(page, learner, correct_source())  # the fix: a checkpoint with the required policy
    expect(body.locator(".checkpoint")).to_contain_text("dots_with_no_batch_dims_saveable")
    expect(body.locator("#backward-operations tr.recomputed").first).to_contain_text("recomputed")
    expect(body.locator("#forward-operations tr.recomputed")).to_have_count(0)
    expect(body.locator("svg#memory-yours rect.mp-recompute").first).to_be_attached()
    assert not Submission.objects.filter(user=learner).exclude(kind="inspect").exists()

    phone = signed_in(live_browser, live_server, learner, viewport={"width": 390, "height": 844}).new_page()
    phone.goto(live_server.url + f"/submissions/{Submission.objects.filter(user=learner).latest('pk').pk}/")
    expect(phone.locator("svg#memory-yours")).to_be_visible()
    sideways = phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert sideways <= 0  # the picture and the tables fit a phone
    phone.locator("#memory-title").scroll_into_view_if_needed()
    phone.screenshot(path=str(SCREENSHOTS / "inspect_390.png"), full_page=False)


def test_the_keyboard_reaches_inspect_after_run_samples(live_browser, live_server, learner, bank):
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + PROBLEM)
    page.locator("#run-button").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "inspect-button"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "submit-button"


def test_the_verdict_page_shows_the_learners_picture_beside_the_references_curve(
    live_browser, live_server, learner, bank, broker
):
    from webplatform.submissions import services

    submission = services.create_submission(
        user=learner, problem=bank["checkpoint_dot_policy"], source=no_checkpoint_source(), kind="submit"
    )
    grade_submission.apply(args=[submission.pk], task_id="submit")
    for width, height in ((1366, 900), (390, 844)):
        page = signed_in(live_browser, live_server, learner, viewport={"width": width, "height": height}).new_page()
        page.goto(live_server.url + f"/submissions/{submission.pk}/")
        yours, reference = page.locator("svg#memory-yours"), page.locator("svg#memory-reference")
        expect(yours).to_be_visible()
        expect(reference).to_be_visible()
        expect(reference).to_have_accessible_name("The reference's memory, as a curve")
        if width == 1366:  # side by side
            assert yours.bounding_box()["y"] == reference.bounding_box()["y"]
        page.locator("#memory-title").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"memory_picture_{width}.png"))


def test_a_budget_problems_picture_draws_the_limit_beside_the_one_peak(
    live_browser, live_server, learner, bank, broker
):
    """On a problem with a limit on the peak, the verdict page draws the limit across the picture and
    says beside the one peak figure how far under it the step stays; readable at 390 px too."""
    from webplatform.submissions import services

    from .helpers import BANK

    source = (BANK / "fit_the_budget" / "reference.py").read_text()
    submission = services.create_submission(user=learner, problem=bank["fit_the_budget"], source=source, kind="submit")
    grade_submission.apply(args=[submission.pk], task_id="budget")
    for width, height in ((1366, 900), (390, 844)):
        page = signed_in(live_browser, live_server, learner, viewport={"width": width, "height": height}).new_page()
        page.goto(live_server.url + f"/submissions/{submission.pk}/")
        expect(page.locator("#memory-figures")).to_contain_text("this problem allows at most 1350000")
        expect(page.locator("svg#memory-yours .mp-limit")).to_have_count(1)
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll
        page.locator("#memory-title").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"memory_budget_{width}.png"))
