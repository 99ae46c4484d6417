"""LTI 1.3 in headless Chromium against a real platform (tests/lti_platform.py: lti1p3platform,
keys made for the test) and the running site (gunicorn, the Celery worker): the platform's
administrator registers it with ``manage.py lti_register``; an instructor's content selection
(deep linking) makes the course and places an assignment with its grade column; a learner
launches it from the platform, solves the problem in the site's editor, the worker grades it,
and the score arrives at the platform by the passback task."""

import re
import time

import pytest
from playwright.sync_api import expect

from ..lti_platform import Platform
from ..web.helpers import correct_source
from .browser import submit_and_wait, type_into_editor

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def platform(site):
    platform = Platform()
    options = platform.registration_options
    printed = site.manage(
        "lti_register",
        "--name",
        "Test platform",
        "--site-url",
        site.url,
        "--issuer",
        options["issuer"],
        "--client-id",
        options["client_id"],
        "--auth-url",
        options["auth_url"],
        "--token-url",
        options["token_url"],
        "--keyset-url",
        options["keyset_url"],
        "--deployment-id",
        options["deployment_id"],
    )
    login_path = re.search(r"login \(OIDC initiation\) URL: \S+?(/lti/login/[0-9a-f-]+/)", printed).group(1)
    platform.start(tool_url=site.url, login_path=login_path)
    yield platform
    platform.stop()


def test_a_learner_launched_from_the_platform_solves_and_the_platform_gets_the_score(site, browser, platform):
    teacher_context = browser.new_context(viewport={"width": 1366, "height": 900})
    learner_context = browser.new_context(viewport={"width": 390, "height": 900})
    try:
        teacher, learner = teacher_context.new_page(), learner_context.new_page()
        platform.person("t-1", "Tess Teacher", instructor=True)
        teacher.goto(platform.deep_link_url("t-1"))
        expect(teacher.locator("h1")).to_have_text("Place an assignment of Remat 101 (platform)")
        expect(teacher.locator("#deep-link-form")).to_contain_text("no assignment yet")
        teacher.goto(f"{site.url}/courses/")
        teacher.click("#my-courses a:has-text('Remat 101 (platform)')")
        teacher.click("#new-assignment")
        teacher.fill("input[name=title]", "Platform week")
        teacher.fill("input[name=due_at]", "2099-01-01T12:00")
        teacher.check("#problem-choices label:has-text('Checkpoint with a save policy')")
        teacher.click("#save-assignment")
        teacher.goto(f"{site.url}/lti/deep-link/")
        teacher.click("#place-assignment")
        expect(teacher.locator("#placed")).to_have_text("Placed 1 activity.")
        (placed,) = platform.state.placed
        assert placed.title == "Platform week" and platform.state.lineitems[placed.lineitem_id]["scoreMaximum"] == 1

        platform.person("s-1", "Sam Student")
        learner.goto(platform.launch_url("s-1", placed))
        expect(learner.locator("h1")).to_contain_text("Platform week")
        expect(learner.locator(".topbar .who")).to_have_text(re.compile(r"^s-1-[0-9a-f]{6}$"))
        learner.click("#my-problems a:has-text('Checkpoint with a save policy')")
        type_into_editor(learner, correct_source())
        submit_and_wait(learner, "accepted")

        deadline = time.monotonic() + 120
        while not platform.state.scores.get(placed.lineitem_id) and time.monotonic() < deadline:
            time.sleep(0.2)  # the worker sends it: wait for it to arrive, however long grading took
        (score,) = platform.state.scores[placed.lineitem_id]
        assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == ("s-1", 1.0, 1.0)
        assert score["gradingProgress"] == "FullyGraded"
    finally:
        teacher_context.close()
        learner_context.close()
