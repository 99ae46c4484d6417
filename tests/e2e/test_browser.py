"""A learner in headless Chromium (Debian's): sign up, open checkpoint_dot_policy, type into the
editor, submit, watch the verdict arrive. Screenshots go to var/screenshots/ (UPDATE_SCREENSHOTS=1
writes them to docs/screenshots/, the ones the README and the docs show)."""

import uuid

import pytest
from playwright.sync_api import expect

from ..web.helpers import no_checkpoint_source
from .browser import SCREENSHOTS, editor_text, submit_and_wait, type_into_editor

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]

# What a learner would type: the pipeline inside one checkpoint with the dots policy.
CORRECT = """import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    def pipeline(w1, w2, x):
        hidden = jax.nn.relu(x @ w1)
        return jnp.sum((hidden @ w2) ** 2)

    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)
"""


def test_a_new_learner_solves_checkpoint_dot_policy_in_the_browser(site, page):
    username = f"learner_{uuid.uuid4().hex[:8]}"
    page.goto(f"{site.url}/accounts/signup/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", "a-long-browser-password")
    page.fill("input[name=password2]", "a-long-browser-password")
    page.click("#signup-button")
    expect(page.locator(".topbar .who")).to_have_text(username)

    page.click("text=Checkpoint with a save policy")
    expect(page.locator("#problem-title")).to_contain_text("Checkpoint with a save policy")
    expect(page.locator("#statement .katex").first).to_be_visible()  # math typeset by our KaTeX
    expect(page.locator("#editor .cm-lineNumbers")).to_be_visible()  # a real editor, with line numbers
    expect(page.locator("#editor .cm-content")).to_contain_text("raise NotImplementedError")  # the starter
    expect(page.locator("#solution-locked")).to_be_visible()

    type_into_editor(page, CORRECT)
    page.reload()  # the draft survives a reload
    expect(page.locator("#editor .cm-content")).to_contain_text("dots_with_no_batch_dims_saveable")
    assert editor_text(page) == CORRECT

    submit_and_wait(page, "accepted")
    table = page.locator("#residual-table")
    expect(table).to_be_visible()
    expect(table.locator("tbody tr")).to_have_count(5)  # x, w1, w2 and the two matmul outputs
    expect(table.locator("tr.offending")).to_have_count(0)
    expect(page.locator("#required-residual-table")).to_be_visible()
    expect(page.locator("#residual-bytes")).to_contain_text("yours 3584 bytes")
    page.screenshot(path=str(SCREENSHOTS / "accepted.png"), full_page=True)

    type_into_editor(page, no_checkpoint_source())
    submit_and_wait(page, "policy_violation")
    expect(page.locator("#message")).to_contain_text("Your program has no jax.checkpoint")
    expect(page.locator("#cause")).to_contain_text("Your program has no jax.checkpoint")
    relu_row = page.locator("#residual-table tr.offending", has_text="(relu)")
    expect(relu_row).to_contain_text("your code saved it")
    folded = relu_row.locator("details.folded li", has_text="broadcast_in_dim")
    expect(folded).to_be_hidden()  # relu's rule's own values: folded under it, shown on demand
    relu_row.locator("details.folded summary").click()
    expect(folded).to_be_visible()
    page.locator("#result").screenshot(path=str(SCREENSHOTS / "policy_violation.png"))
    for width in (390, 1366):  # the cause above the table, on a phone and on a laptop
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#result").screenshot(path=str(SCREENSHOTS / f"policy_violation_cause_{width}.png"))

    page.click("#result-link")  # the verdict page of that submission, with the code as submitted
    expect(page.locator("#verdict")).to_have_text("policy_violation")
    expect(page.locator("#submitted-code")).to_contain_text("jax.nn.relu(x @ w1)")
    expect(page.locator("#forward-program")).to_contain_text("dot_general")
    page.screenshot(path=str(SCREENSHOTS / "verdict_page.png"), full_page=True)
    page.go_back()

    page.reload()  # solved: the reference and the explanation are open now
    expect(page.locator("#reference")).to_contain_text("dots_with_no_batch_dims_saveable")
    expect(page.locator("#problem-title .solved")).to_be_visible()
    page.goto(f"{site.url}/")
    expect(page.locator("tr[data-slug=checkpoint_dot_policy] .solved")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "problems.png"))
