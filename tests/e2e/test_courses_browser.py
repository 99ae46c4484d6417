"""A class in headless Chromium: an instructor (in India) creates a course and an assignment of
two problems due in two days with a week's late window at 25 %; a learner (in New York, on a
phone) joins with the code and solves the first before the due time; the due time then moves to
just after that acceptance (the course service an instructor's edit calls, run against the site's
database: no waiting for a clock), and the learner solves the second in the late window. The
learner's page, the gradebook and its CSV show one on time and one late with its penalty.
Screenshots at 390 and 1366 px go where test_browser.py puts them."""

import csv
import re
import textwrap
import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from ..web.helpers import BANK, correct_source
from .browser import SCREENSHOTS, submit_and_wait, type_into_editor

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]
DEMO_INSTRUCTOR = ("instructor", "instructor-pass-1")
PASSWORD = "a-long-browser-password"
INDIA, NEW_YORK = ZoneInfo("Asia/Kolkata"), ZoneInfo("America/New_York")
NAMES_SOURCE = (BANK / "checkpoint_names" / "submissions" / "accepted" / "decorator_two_names.py").read_text()


def shown(moment: datetime, zone: ZoneInfo) -> str:
    """A time as the course pages write it (Django's "D j M Y, H:i T") in ``zone``."""
    local = moment.astimezone(zone)
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()}"


def new_context(browser, zone: str, width: int):
    return browser.new_context(timezone_id=zone, locale="en-US", viewport={"width": width, "height": 900})


def test_a_class_sees_one_problem_on_time_and_one_late_with_its_penalty(site, browser):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    teacher_context, learner_context = (
        new_context(browser, "Asia/Kolkata", 1366),
        new_context(browser, "America/New_York", 390),
    )
    try:
        teacher, learner = teacher_context.new_page(), learner_context.new_page()
        # The instructor starts the course and sets the assignment, in her own time zone.
        teacher.goto(f"{site.url}/accounts/login/")
        teacher.fill("input[name=username]", DEMO_INSTRUCTOR[0])
        teacher.fill("input[name=password]", DEMO_INSTRUCTOR[1])
        teacher.click("button[type=submit]")
        teacher.goto(f"{site.url}/courses/")
        title = f"Remat 101 {uuid.uuid4().hex[:4]}"
        teacher.fill("#new-course input[name=title]", title)
        teacher.fill("#new-course input[name=term]", "Spring 2026")
        teacher.click("#create-course")
        expect(teacher.locator("h1")).to_contain_text(title)
        code = teacher.locator("#join-code").inner_text()
        teacher.click("#new-assignment")
        expect(teacher.locator("#zone-note")).to_contain_text(
            re.compile("Asia/(Kolkata|Calcutta)")
        )  # ICU may say either
        due = (datetime.now(INDIA) + timedelta(days=2)).replace(second=0, microsecond=0)
        late = due + timedelta(days=7)
        teacher.fill("input[name=title]", "Week 1")
        teacher.fill("input[name=opens_at]", (due - timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"))
        teacher.fill("input[name=due_at]", due.strftime("%Y-%m-%dT%H:%M"))
        teacher.fill("input[name=late_until]", late.strftime("%Y-%m-%dT%H:%M"))
        teacher.fill("input[name=late_penalty_percent]", "25")
        teacher.check("#problem-choices label:has-text('Checkpoint with a save policy')")
        teacher.check("#problem-choices label:has-text('Save one named value')")
        teacher.click("#save-assignment")
        expect(teacher.locator("h1")).to_have_text("Gradebook: Week 1")
        expect(teacher.locator(".meta").first).to_contain_text(shown(due, INDIA))

        # The learner signs up on a phone, joins with the code, sees the due time in New York time.
        username = f"learner_{uuid.uuid4().hex[:8]}"
        learner.goto(f"{site.url}/accounts/signup/")
        learner.fill("input[name=username]", username)
        learner.fill("input[name=password1]", PASSWORD)
        learner.fill("input[name=password2]", PASSWORD)
        learner.click("#signup-button")
        learner.goto(f"{site.url}/courses/")
        learner.fill("#id_code", code.lower())
        learner.click("#join-button")
        expect(learner.locator("h1")).to_contain_text(title)
        learner.reload()  # the browser's zone is known to the site from the first page on
        row = learner.locator("#assignments tr[data-assignment]")
        expect(row).to_contain_text(shown(due, NEW_YORK))
        row.locator("a").click()
        expect(learner.locator("#assignment-state")).to_have_text("open")

        # The first problem, before the due time.
        learner.click("#my-problems a:has-text('Checkpoint with a save policy')")
        type_into_editor(learner, correct_source())
        submit_and_wait(learner, "accepted")

        # The due time moves to one second after that acceptance: the second problem is late.
        moved = site.manage(
            "shell",
            "-c",
            textwrap.dedent(f"""
            from datetime import timedelta
            from webplatform.courses import selectors, services
            from webplatform.courses.models import Assignment
            from webplatform.submissions.models import Submission
            a = Assignment.objects.get(course__title={title!r}, title="Week 1")
            first = Submission.objects.filter(user__username={username!r}, verdict="accepted").latest("created_at")
            services.save_assignment(course=a.course, assignment=a, title=a.title, opens_at=a.opens_at,
                                     due_at=first.created_at + timedelta(seconds=1), late_until=a.late_until,
                                     late_penalty_percent=a.late_penalty_percent, problems=selectors.problems_of(a))
            print(Assignment.objects.get(pk=a.pk).due_at.isoformat())"""),
        )
        new_due = datetime.fromisoformat(moved.strip().splitlines()[-1])
        learner.goto(f"{site.url}/courses/")
        learner.click("#due-soon a:has-text('Week 1')")
        expect(learner.locator("#assignment-state")).to_have_text("late")
        learner.click("#my-problems a:has-text('Save one named value')")
        type_into_editor(learner, NAMES_SOURCE)
        submit_and_wait(learner, "accepted")

        learner.go_back()
        learner.reload()
        mine = learner.locator("#my-problems")
        expect(mine.locator("tr[data-problem=checkpoint_dot_policy] .on-time-mark")).to_have_text("on time")
        expect(mine.locator("tr[data-problem=checkpoint_names] .late-mark")).to_have_text("late")
        expect(mine.locator("tr[data-problem=checkpoint_names] .points")).to_have_text("0.75")
        expect(learner.locator("#my-standing")).to_contain_text("1.75 of 2")
        expect(learner.locator("#deadlines")).to_contain_text(shown(new_due, NEW_YORK))
        learner.screenshot(path=str(SCREENSHOTS / "courses_assignment_390.png"), full_page=True)

        # The gradebook and its CSV.
        teacher.reload()
        line = teacher.locator(f"#gradebook tr[data-user={username}]")
        expect(line.locator("td.cell").nth(0)).to_contain_text("on time")
        expect(line.locator("td.cell").nth(1)).to_contain_text("late −25%")
        expect(line.locator("td.points")).to_have_text("1.75 / 2")
        teacher.screenshot(path=str(SCREENSHOTS / "courses_gradebook_1366.png"), full_page=True)
        with teacher.expect_download() as download:
            teacher.click("#export-csv")
        with open(download.value.path(), newline="") as handle:
            rows = {r["username"]: r for r in csv.DictReader(handle)}
        mine = rows[username]
        assert (mine["Checkpoint with a save policy: status"], mine["Checkpoint with a save policy: points"]) == (
            "on time",
            "1.0",
        )
        assert (mine["Save one named value: status"], mine["Save one named value: points"]) == ("late (-25%)", "0.75")
        assert (mine["points"], mine["out of"], mine["percent"]) == ("1.75", "2", "87.5")

        teacher.set_viewport_size({"width": 390, "height": 900})
        teacher.reload()
        teacher.screenshot(path=str(SCREENSHOTS / "courses_gradebook_390.png"), full_page=True)
        assert teacher.evaluate("document.documentElement.scrollWidth") <= 390  # the table scrolls in its box
        # The column cut at the screen's edge says "more this way", and stops saying it at the end.
        box = teacher.locator(".table-box:has(#gradebook)")
        expect(box).to_have_attribute("data-more", "right")
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
        expect(box).to_have_attribute("data-more", "left")
    finally:
        teacher_context.close()
        learner_context.close()
