"""The leaderboard in headless Chromium against the running site: a new learner's accepted
submission, graded by the real worker with its cost measured, appears on the problem's chart as
their own point and in the rankings; the chart reads the same with JavaScript switched off."""

import uuid

import pytest
from playwright.sync_api import expect

from ..web.helpers import correct_source
from .browser import SCREENSHOTS
from .http import Session

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]
PASSWORD = "a-long-browser-password"


def sign_up_and_solve(site) -> tuple[str, dict]:
    """A new learner (over HTTP) whose correct submission the worker grades; returns the
    username and the submission's row as the database has it."""
    username = f"charted_{uuid.uuid4().hex[:8]}"
    session = Session(site.url)
    session.get("/accounts/signup/")  # the CSRF cookie
    status, _, body = session.request(
        "/accounts/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert status == 302, body[:500]
    status, created = session.post_json("/problems/checkpoint_dot_policy/submit/", {"source": correct_source()})
    assert status == 201, created
    assert site.wait_for_verdict(session, created["id"])["verdict"] == "accepted"
    return username, site.submission(created["id"])


def log_in(page, site, username: str) -> None:
    page.goto(f"{site.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-button")
    expect(page.locator(".topbar .who")).to_have_text(username)


def test_my_accepted_submission_is_my_point_on_the_chart_and_a_row_of_the_rankings(site, page, browser):  # noqa: F811
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    username, row = sign_up_and_solve(site)
    assert row["flops"] > 0 and row["residual_bytes"] == 3584 and row["peak_bytes"] > 0  # measured by the worker
    log_in(page, site, username)

    page.click(".topbar nav >> text=Leaderboard")
    mine = page.locator(f"#global-ranking tr.me[data-user={username}]")
    expect(mine).to_be_visible()
    expect(mine.locator(".solved-count")).to_have_text("1")

    page.goto(f"{site.url}/problems/checkpoint_dot_policy/")
    page.click("#problem-leaderboard")
    chart = page.locator("svg#tradeoff-chart")
    expect(chart).to_be_visible()
    own = chart.locator("g.own")
    expect(own).to_be_visible()
    assert own.get_attribute("data-flops") == str(row["flops"]) and own.get_attribute("data-bytes") == "3584"
    expect(chart.locator("circle.point.front").first).to_be_visible()
    inside(own.bounding_box(), chart.bounding_box())
    expect(page.locator(f"#problem-ranking tr.me[data-user={username}] .residual_bytes")).to_have_text("3.5 KiB")
    page.screenshot(path=str(SCREENSHOTS / "leaderboard_problem.png"), full_page=True)

    # Without JavaScript: the same chart, drawn by the server.
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
    try:
        plain = context.new_page()
        plain.goto(f"{site.url}/leaderboard/problems/checkpoint_dot_policy/")
        expect(plain.locator("svg#tradeoff-chart circle.point").first).to_be_visible()
        expect(plain.locator("svg#tradeoff-chart title#chart-title")).to_have_text(
            "Residual bytes against FLOPs: Checkpoint with a save policy"
        )
        expect(plain.locator("#pareto-front tbody tr").first).to_be_visible()
    finally:
        context.close()


def inside(box: dict, frame: dict) -> None:
    """The marker is drawn within the chart's area, not clipped off it."""
    assert box["width"] > 0 and box["height"] > 0
    assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"]
    assert frame["y"] <= box["y"] and box["y"] + box["height"] <= frame["y"] + frame["height"]
