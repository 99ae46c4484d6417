"""The API tokens page and the API's docs in headless Chromium against the running site: a
learner makes a token, sees it once, uses it; /api/docs draws every operation from our own
static files, and no request of either page leaves the site."""

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from .browser import SCREENSHOTS
from .conftest import DEMO_LEARNER

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]


def requests_of(page) -> list[str]:
    seen = []
    page.on("request", lambda request: seen.append(request.url))
    return seen


def api_get(site, path: str, token: str) -> dict:
    request = urllib.request.Request(f"{site.url}/api/v1{path}", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_a_learner_makes_a_token_sees_it_once_and_uses_it(site, page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen = requests_of(page)
    page.goto(f"{site.url}/accounts/login/")
    page.fill("input[name=username]", DEMO_LEARNER[0])
    page.fill("input[name=password]", DEMO_LEARNER[1])
    page.click("#login-button")
    page.click("#tokens-link")
    page.fill("input[name=name]", "laptop")
    page.click("#create-token")
    token = page.locator("#token-value").inner_text().strip()
    assert token.startswith("arena_")
    assert api_get(site, "/me", token)["username"] == DEMO_LEARNER[0]
    page.set_viewport_size({"width": 1366, "height": 900})
    page.screenshot(path=str(SCREENSHOTS / "api_tokens.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SCREENSHOTS / "api_tokens_phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than a phone

    page.goto(f"{site.url}/accounts/tokens/")  # shown once: not on the next visit
    expect(page.locator("#token-value")).to_have_count(0)
    row = page.locator("#tokens tr", has_text="laptop").first
    expect(row).to_contain_text(token[:10])
    row.locator("button.revoke").click()
    expect(page.locator(".flash")).to_contain_text("revoked")
    with pytest.raises(urllib.error.HTTPError) as refused:
        api_get(site, "/me", token)
    assert refused.value.code == 401
    assert all(url.startswith(site.url) for url in seen), [url for url in seen if not url.startswith(site.url)]


def test_the_api_docs_draw_every_operation_from_our_own_static_files(site, page):
    seen = requests_of(page)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{site.url}/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Remat Arena API")
    operations = page.locator(".opblock-summary-path")
    expect(operations.first).to_be_visible()
    paths = set(operations.all_inner_texts())
    assert {
        "/api/v1/problems",
        "/api/v1/problems/{slug}/submissions",
        "/api/v1/submissions/{submission_id}",
        "/api/v1/leaderboard",
    } <= {p.replace("\u200b", "") for p in paths}
    page.screenshot(path=str(SCREENSHOTS / "api_docs.png"))
    assert all(url.startswith(site.url) for url in seen), [url for url in seen if not url.startswith(site.url)]
    assert any("/static/ninja/swagger-ui-bundle" in url for url in seen)
