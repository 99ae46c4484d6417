"""An instructor writes a problem from scratch in headless Chromium (checkpoint with
save_only_these_names), validation catches a wrong submission the loose residual rule lets
through, the fixed rule passes, the problem is published, and a learner solves it.
Screenshots go where test_browser.py puts them (docs/instructors/authoring.md shows authoring_form.png and
authoring_validation.png)."""

import re
import uuid

import pytest
from playwright.sync_api import expect

from .browser import GRADING_TIMEOUT_MS, SCREENSHOTS, submit_and_wait, type_into_editor

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]
DEMO_INSTRUCTOR = ("instructor", "instructor-pass-1")
DEMO_LEARNER = ("learner", "learner-pass-1")

REFERENCE = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def _block(w, x):
    h = checkpoint_name(jnp.tanh(x @ w), "h")
    return jnp.sum(jnp.sin(h @ w))


def tanh_block(w, x):
    policy = jax.checkpoint_policies.save_only_these_names("h")
    return jax.checkpoint(_block, policy=policy)(w, x)
"""
STARTER = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def tanh_block(w, x):
    raise NotImplementedError
"""
NO_CHECKPOINT = """import jax.numpy as jnp


def tanh_block(w, x):
    return jnp.sum(jnp.sin(jnp.tanh(x @ w) @ w))
"""
LEARNER = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def tanh_block(w, x):
    def block(w, x):
        h = checkpoint_name(jnp.tanh(jnp.dot(x, w)), "h")
        return jnp.sum(jnp.sin(jnp.dot(h, w)))

    keep_h = jax.checkpoint_policies.save_only_these_names("h")
    return jax.checkpoint(block, policy=keep_h)(w, x)
"""
STATEMENT = """# Keep only the tanh

Save $h = \\tanh(xW)$ for the backward pass and nothing else of the block.

## Task

Write `tanh_block(w, x)` returning $\\sum \\sin(hW)$, checkpointed so that only the value named `h` is saved.
"""


def log_in(page, site, who) -> None:
    page.goto(f"{site.url}/accounts/login/")
    page.fill("input[name=username]", who[0])
    page.fill("input[name=password]", who[1])
    page.click("button[type=submit]")
    expect(page.locator(".topbar .who")).to_have_text(who[0])


def add_submission(page, expected: str, name: str, source: str) -> None:
    page.click("#add-submission")
    page.select_option("select[name=expected]", expected)
    page.fill("input[name=name]", name)
    type_into_editor(page, source, "#id_source-editor")
    page.click("#save-submission")
    expect(page.locator("#packaged-submissions")).to_contain_text(f"{name}.py")


def validate(page, outcome: str) -> None:
    page.click("#validate-button")
    expect(page.locator("#validation-status")).to_have_text(outcome, timeout=GRADING_TIMEOUT_MS)
    expect(page.locator("#validation-progress")).to_have_text("3 of 3 graded")


def test_an_instructor_writes_validates_and_publishes_a_problem_that_a_learner_then_solves(site, browser):
    slug = f"keep_the_tanh_{uuid.uuid4().hex[:6]}"
    title = f"Keep only the tanh {slug[-6:]}"
    instructor = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
    log_in(instructor, site, DEMO_INSTRUCTOR)
    instructor.click("#authoring-link")
    instructor.click("#new-problem")

    # From scratch: the form starts from an empty shape; the preview follows the typing.
    instructor.fill("input[name=title]", title)
    instructor.fill("input[name=slug]", slug)
    instructor.fill("textarea[name=statement]", STATEMENT)
    instructor.fill("input[name=entry_function]", "tanh_block")
    type_into_editor(instructor, STARTER, "#id_starter-editor")
    type_into_editor(instructor, REFERENCE, "#id_reference-editor")
    instructor.fill("input[name=args-0-name]", "w")
    instructor.fill("input[name=args-0-spec]", "f32[d,d]")
    instructor.fill("input[name=args-0-scale]", "0.3")
    instructor.click("text=Add an argument")
    instructor.fill("input[name=args-1-name]", "x")
    instructor.fill("input[name=args-1-spec]", "f32[N,d]")
    instructor.fill("input[name=wrt]", "w, x")
    instructor.uncheck("input[name=match_reference]")  # too loose: the mistake validation will show
    preview = instructor.locator("#preview")
    expect(preview.locator("#signature")).to_have_text("tanh_block(w: f32[d,d], x: f32[N,d])")
    expect(preview.locator(".katex").first).to_be_visible()
    expect(preview.locator(".samples")).to_contain_text("x: 4×8")
    expect(preview).not_to_contain_text("hidden-1")  # hidden cases are not what learners see
    instructor.locator("#id_reference-editor").scroll_into_view_if_needed()
    instructor.screenshot(path=str(SCREENSHOTS / "authoring_form.png"))

    # A field the loader refuses comes back next to it, and nothing is created.
    instructor.fill("input[name=cases-1-dims]", "N = 16")
    instructor.click("#save-button")
    hidden_dims = instructor.locator("#cases-rows tbody tr").nth(1).locator("td[data-field=dims]")
    expect(hidden_dims).to_contain_text("no value for dimension(s) d")
    instructor.fill("input[name=cases-1-dims]", "N = 16, d = 32")
    instructor.click("#save-button")
    expect(instructor.locator(".flash")).to_contain_text("Created")

    add_submission(instructor, "accepted", "same_as_reference", REFERENCE)
    add_submission(instructor, "policy_violation", "no_checkpoint", NO_CHECKPOINT)
    expect(instructor.locator("#publish-button")).to_be_disabled()

    validate(instructor, "failed")
    wrong = instructor.locator("tr[data-submission='submissions/policy_violation/no_checkpoint.py']")
    expect(wrong).to_contain_text("FAIL")
    expect(wrong.locator(".actual")).to_have_text("accepted")
    instructor.screenshot(path=str(SCREENSHOTS / "authoring_validation.png"))
    instructor.click("#back-to-draft")
    expect(instructor.locator("#publish-button")).to_be_disabled()

    # The fix: the residual rule and the required policy.
    instructor.check("input[name=match_reference]")
    instructor.fill("input[name=policy]", "save_only_these_names('h')")
    instructor.click("#save-button")
    expect(instructor.locator(".flash")).to_contain_text("Saved")
    validate(instructor, "passed")
    expect(wrong.locator(".actual")).to_have_text("policy_violation")
    signature = instructor.locator("#reference-signature")
    expect(signature).to_contain_text("named 'h'")
    expect(instructor.locator(".checkpoint")).to_contain_text("save_only_these_names('h')")
    instructor.click("#back-to-draft")
    instructor.click("#publish-button")
    expect(instructor.locator(".flash")).to_contain_text(f"Published version 1 of {slug}")
    expect(instructor.locator("#earlier-count")).to_have_text("No earlier submission to rejudge.")

    learner = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
    log_in(learner, site, DEMO_LEARNER)
    learner.click(f"text={title}")
    expect(learner.locator("#signature")).to_have_text("tanh_block(w: f32[d,d], x: f32[N,d])")
    expect(learner.locator("#editor .cm-content")).to_contain_text("raise NotImplementedError")
    expect(learner.locator("#solution-locked")).to_be_visible()
    type_into_editor(learner, LEARNER)
    submit_and_wait(learner, "accepted")
    expect(learner.locator("#residual-table")).to_contain_text("named 'h'")
    learner.reload()
    expect(learner.locator("#reference")).to_contain_text('checkpoint_name(jnp.tanh(x @ w), "h")')

    instructor.goto(f"{site.url}/authoring/problems/{slug}/statistics/")
    expect(instructor.locator("#attempts")).to_have_text("1")
    expect(instructor.locator("#acceptance-rate")).to_have_text(re.compile("100%"))
