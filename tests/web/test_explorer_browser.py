"""A learner opens the policy explorer from a problem page in Debian's headless Chromium, pastes
a function of their own with its shapes and a budget, waits for the background worker (run here
as the worker runs it) and reads off the plan that fits. Screenshots at 390 px and 1366 px
(``UPDATE_SCREENSHOTS=1`` writes them into docs/screenshots)."""

import re

import pytest
from playwright.sync_api import expect

from webplatform.explorer.models import Exploration
from webplatform.explorer.tasks import run_exploration

from ..e2e.browser import SCREENSHOTS
from .helpers import signed_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MINE = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def block(w1, w2, x):
    h1 = checkpoint_name(jnp.tanh(x @ w1), "h1")
    return jnp.mean(jnp.tanh(h1 @ w2) ** 2)
"""
# The inputs (held whatever the plan) and the two products, (64, 256) and (64, 128): saving the
# products fits, saving everything does not. (Saving only h1 still recomputes x @ w1: tanh's
# derivative reads its own result, not the named copy of it, so that plan is beaten.)
INPUTS = (128 * 256 + 256 * 128 + 64 * 128) * 4
BUDGET = INPUTS + (64 * 256 + 64 * 128) * 4


def test_a_learner_opens_the_explorer_from_a_problem_and_reads_the_plan_that_fits(
    live_browser, live_server, learner, bank, broker
):
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + "/problems/checkpoint_dot_policy/")
    page.locator("#problem-explorer").click()
    expect(page.locator("#explorer-title")).to_have_text("Policy explorer")
    expect(page.locator("#from-problem")).to_have_text("Checkpoint with a save policy")
    page.locator("#explore-source").fill(MINE)
    page.locator("#explore-function").fill("block")
    page.locator("#explore-args").fill("f32[128,256] f32[256,128] f32[64,128]")
    page.locator("#explore-budget").fill(str(BUDGET))
    page.locator("#explore-button").click()
    expect(page.locator("#explore-status")).to_have_text("queued")
    found = Exploration.objects.get(user=learner)
    run_exploration.apply(args=[found.pk], task_id=f"explore-{found.pk}")  # what the background worker does
    # the page reads itself again until the work is done
    expect(page.locator("#best-plan")).to_have_text("dots_saveable", timeout=30_000)
    expect(page.locator("#plan-code")).to_have_text(
        "jax.checkpoint(block, policy=jax.checkpoint_policies.dots_saveable)"
    )
    expect(page.locator("#explore-table tbody tr")).to_have_count(9)  # 6 policies, 3 for the name h1
    expect(page.locator("#explore-table tr.dominated").first).to_contain_text("save_only_these_names('h1')")
    expect(page.locator("#explore-chart g.plan.chosen")).to_have_count(1)
    expect(page.locator("#explore-chart g.plan.dominated").first).to_be_attached()
    # the chart reads: the budget drawn as a line, bytes in their units, numbers that overlap nothing
    expect(page.locator("#explore-chart g.budget")).to_have_count(1)
    expect(page.locator("#plan-text")).to_contain_text("KiB")
    expect(page.locator("#chart-key li").first).to_be_visible()
    assert _overlapping_labels(page) == []
    # each plan's code is one click away
    first = page.locator("#explore-table details.plan-code").nth(2)
    first.locator("summary").click()
    expect(first.locator("pre")).to_have_text("jax.checkpoint(block, policy=jax.checkpoint_policies.nothing_saveable)")
    page.locator("#plan").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "explorer_1366.png"), full_page=True)

    # a tighter budget, chosen on the page: only recomputing the products fits
    page.locator("#budget-input").fill(str(INPUTS))
    page.locator("#budget-button").click()
    expect(page.locator("#best-plan")).to_have_text("offload_dot_with_no_batch_dims")

    phone = signed_in(live_browser, live_server, learner, viewport={"width": 390, "height": 844}).new_page()
    phone.goto(live_server.url + f"/explore/{found.pk}/")
    expect(phone.locator("#best-plan")).to_have_text("dots_saveable")
    sideways = phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert sideways <= 0  # the chart, the table and the code fit a phone
    assert _overlapping_labels(phone) == []
    phone.screenshot(path=str(SCREENSHOTS / "explorer_390.png"), full_page=True)


def _overlapping_labels(page) -> list:
    """Pairs of the chart's point numbers whose boxes, as drawn, overlap."""
    return page.evaluate(
        """() => {
        const boxes = [...document.querySelectorAll('#explore-chart .plan-label')].map(e => e.getBoundingClientRect());
        const found = [];
        boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b, j) => {
            if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) found.push([i, i + 1 + j]);
        }));
        return found;
    }"""
    )


STACK = """import jax
import jax.numpy as jnp


def block(h, w):
    return h + jnp.tanh(h @ w), None


def stack(ws, x):
    h, _ = jax.lax.scan(block, x, ws)
    return jnp.mean(h ** 2)
"""


def test_a_learner_reads_off_where_to_checkpoint_a_scan_of_blocks_within_a_peak_budget(
    live_browser, live_server, learner, broker
):
    # on a phone: the form's choice of what the budget bounds, by its label, fits the screen
    page = signed_in(live_browser, live_server, learner, viewport={"width": 390, "height": 844}).new_page()
    page.goto(live_server.url + "/explore/")
    page.locator("#explore-source").fill(STACK)
    page.locator("#explore-function").fill("stack")
    page.locator("#explore-args").fill("f32[8,64,64] f32[128,64]")
    bounds = page.get_by_label("The budget bounds")
    expect(bounds).to_have_value("held")
    bounds.select_option(label="the step's peak")
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    page.locator("#explore-button").click()
    found = Exploration.objects.get(user=learner)
    assert found.budget_on == "peak"
    run_exploration.apply(args=[found.pk], task_id=f"explore-{found.pk}")
    # a row of its own, beside the policies' and the placements with a policy inside ("... with dots_saveable")
    every = re.compile(r"^checkpoint every block$")
    placement = page.locator("#explore-table tbody tr").filter(has=page.locator("summary code", has_text=every))
    expect(placement).to_have_count(1, timeout=30_000)
    expect(page.locator("#explore-table tbody tr", has_text="nested: sqrt(N) segments")).to_have_count(1)
    expect(page.locator("#explore-table tbody tr", has_text="checkpoint every block with dots_saveable")).to_have_count(
        1
    )
    point = re.compile(r"\d+\. (.*, )?checkpoint every block(, |:)")
    expect(page.locator("#explore-chart g.plan").filter(has=page.locator("title", has_text=point))).to_have_count(1)
    expect(page.locator("#budget-on")).to_have_value("peak")  # the results open on the choice made at the start
    rows = {r["plan"]: r for r in Exploration.objects.get(pk=found.pk).result["rows"]}
    page.locator("#budget-input").fill(str(rows["checkpoint every block"]["peak_bytes"]))
    page.locator("#budget-button").click()
    expect(page.locator("#best-plan")).to_have_text("checkpoint every block")
    expect(page.locator("#plan-code")).to_have_text("h, ys = jax.lax.scan(jax.checkpoint(block), h, layers)")
