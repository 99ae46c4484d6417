"""Driving Debian's headless Chromium with Playwright (no browser is downloaded): the flags, and
what the browser tests do in the learners' editor."""

import os
import re
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
# A test run must not dirty the work tree; refreshing the docs' pictures is a deliberate act.
SCREENSHOTS = ROOT / ("docs" if os.environ.get("UPDATE_SCREENSHOTS") == "1" else "var") / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
GRADING_TIMEOUT_MS = 180_000


@contextmanager
def chromium():
    """Debian's Chromium, headless, driven by Playwright. While it runs, this thread has a
    running event loop (Playwright's): Django's ORM refuses to be called beside it unless
    DJANGO_ALLOW_ASYNC_UNSAFE is set."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make system-deps-test` (installs Debian's chromium)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


def type_into_editor(page, source: str, editor: str = "#editor") -> None:
    """Replaces the text of a CodeMirror editor, as a person typing would."""
    page.locator(f"{editor} .cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)


def editor_text(page) -> str:
    return page.evaluate("() => window.rematEditor.getText()")


def submit_and_wait(page, verdict: str) -> None:
    page.locator("#submit-button").click()
    expect(page.locator("#status")).to_have_text(re.compile("queued|running|" + verdict))
    expect(page.locator("#status")).to_have_text(verdict, timeout=GRADING_TIMEOUT_MS)
