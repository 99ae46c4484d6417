"""Every page of the site, as each kind of visitor sees it, in Debian's headless Chromium at a
phone's width (390 px) and a laptop's (1366 px), and at the phone's width in the dark theme: the
page itself never scrolls sideways (a wide table or program scrolls in its own box), no raw
template text shows, the site's navigation is around it (error pages too), and axe-core (pinned
from npm, copied into tests/assets/ by `make assets`) finds no serious or critical violation of
WCAG 2.2 AA (target size included) or of its best practices.

The site runs in this process (pytest-django's live_server), so the test makes each state it
visits: verdicts graded by the real judge, a passed validation, a learner over the rate limit, a
database that is down. ``PAGE_AUDIT_REPORT=path.json`` also writes what was measured per page.

Every page is visited and measured in every view; axe-core runs on the pages whose app changed and
on a fixed sample of the rest (tests/sweeps.py), on every page under ``TEST_FULL_SWEEP=1`` or when a
file every page shares changed (the base templates, the stylesheets and scripts, the site's core)."""

import json
import os
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Callable
from urllib.parse import urlparse

import pytest
from django.db import OperationalError, connections, transaction
from django.urls import Resolver404, resolve
from django.utils import timezone
from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration
from playwright.sync_api import expect

from judge.packages.archive import folder_files
from webplatform.authoring import services as authoring
from webplatform.authoring.tasks import validate_draft
from webplatform.courses import services as courses
from webplatform.courses.models import SimilarPair
from webplatform.courses.tasks import check_similarity
from webplatform.explorer import services as explorer
from webplatform.explorer.tasks import run_exploration
from webplatform.explorer.views import EXAMPLE, EXAMPLE_ARGS
from webplatform.lti.models import CourseContext, RosterSync
from webplatform.submissions import services as submissions
from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from .. import sweeps
from ..e2e.browser import SCREENSHOTS, type_into_editor
from .helpers import BANK, copy_package, correct_source, no_checkpoint_source, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / "assets" / "axe-core" / "axe.min.js"
VIEWS = ((390, "light"), (1366, "light"), (390, "dark"))  # (width in px, colour scheme)
DOT = "checkpoint_dot_policy"
# Text a template meant as a comment or a tag, shown as it is: outside code, nothing a page says
# contains these.
RAW_TEMPLATE = re.compile(r"\{#|#\}|\{%|%\}|\{\{|\}\}")
VISIBLE_TEXT = """() => {
  const skip = (node) => node.parentElement && node.parentElement.closest("pre, code, .katex, script, style, textarea");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walker.nextNode()) if (!skip(walker.currentNode)) parts.push(walker.currentNode.textContent);
  return parts.join(" ");
}"""
# Two frames: what the page does on a resize (its scroll boxes take the focus or give it back) is done.
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
SIDEWAYS = "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth"
# The dark scheme changes colours only (test_the_dark_scheme_changes_colours_only holds the
# stylesheets to that), so in that view only the rules that read colours run: the rest would find
# what the light view of the same document found, at about 60 % of the audit's time.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# What every page is drawn with: a change here has axe-core run on every page.
EVERY_PAGE_READS = (
    "webplatform/templates/",
    "webplatform/static/",
    "webplatform/core/",
    "webplatform/settings.py",
    "webplatform/urls.py",
    "webplatform/accounts/context_processors.py",
    "tests/web/test_every_page.py",
    "tests/assets/",
    "frontend/",
)
RUN_AXE = """async (only) => {
  const options = only ? {runOnly: {type: "rule", values: only}} : {rules: {"target-size": {enabled: true}}};
  const results = await axe.run(document, {resultTypes: ["violations"], ...options});
  return results.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
                                         targets: v.nodes.slice(0, 3).map((n) => n.target.join(" "))}));
}"""


@dataclass
class Measure:
    sideways_px: int
    raw_text: list
    violations: list  # axe-core's, every impact
    in_layout: bool  # the site's navigation is around it (an error page too)

    @property
    def serious(self) -> list:
        return [v for v in self.violations if v["impact"] in ("serious", "critical")]


@dataclass
class Visit:
    name: str
    who: str
    go: Callable  # (page) -> HTTP status of what the page shows
    status: int
    measures: dict = field(default_factory=dict)  # width -> Measure
    error: str = ""
    axe: bool = True  # whether axe-core ran on it (tests/sweeps.py)


def measure(page, rules: list | None = None, axe: bool = True) -> Measure:
    """What the view shows; ``rules``: only these of axe-core's (None: all of them); ``axe``:
    whether axe-core runs at all."""
    page.evaluate(SETTLED)
    # axe-core comes as a file of the site's own origin (the browser is handed it here): the
    # site's Content-Security-Policy refuses inline script, and the audit keeps the policy on.
    # Once per page: the other views of it (another width, the dark scheme) keep the same document.
    if axe and not page.evaluate("() => typeof axe !== 'undefined'"):
        origin = re.match(r"https?://[^/]+", page.url).group(0)
        page.route(
            f"{origin}/__axe-core.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript")
        )
        page.add_script_tag(url=f"{origin}/__axe-core.js")
        page.unroute(f"{origin}/__axe-core.js")
    return Measure(
        sideways_px=page.evaluate(SIDEWAYS),
        raw_text=RAW_TEMPLATE.findall(page.evaluate(VISIBLE_TEXT)),
        violations=page.evaluate(RUN_AXE, rules) if axe else [],
        in_layout=page.locator("header nav a[href='/']").count() > 0,
    )


def axe_runs_on(visit: Visit, url: str, sample: set) -> bool:
    """Whether axe-core audits the page ``visit`` shows at ``url``: its view's app changed (its
    views, forms, selectors), a template or a file every page reads changed, or it is sampled."""
    changed = sweeps.changed_files()
    if changed is None or sweeps.full_sweep() or (visit.who, visit.name) in sample:
        return True
    # a template, or a template tag, may be included by any app's pages
    if any(path.startswith(EVERY_PAGE_READS) or "/templates/" in path or "/templatetags/" in path for path in changed):
        return True
    path = urlparse(url).path
    try:
        module = getattr(resolve(path).func, "__module__", "")
    except Resolver404:
        return True
    if module.startswith("webplatform."):
        return sweeps.touched(["webplatform/" + module.split(".")[1] + "/"])
    # a library's view (the sign-in pages): the app that holds its templates is the path's first part
    return sweeps.touched(["webplatform/" + path.strip("/").split("/")[0] + "/"])


def opened(page, url):
    """Goes to ``url``; the status of the answer."""
    return page.goto(url).status


def posted_without_script(page, url, source):
    """The problem page's form sent as a browser without JavaScript sends it; the answer's status."""
    page.goto(url)
    with page.expect_navigation() as navigation:
        page.evaluate(
            """(source) => {
            const form = document.getElementById("solve-form");
            form.querySelector("[name=source]").value = source;
            form.submit();
        }""",
            source,
        )
    return navigation.value.status


def grade(submission_id: int) -> str:
    return grade_submission.apply(args=[submission_id], task_id=f"grade-{submission_id}").get()


@pytest.fixture
def people(make_user, staff):
    return {
        "learner": make_user("ada"),
        "other": make_user("grace"),
        "instructor": make_user("iris", instructor=True),
        "staff": staff,
        "gone": make_user("lin"),
    }


@pytest.fixture
def scenario(bank, people, broker, tmp_path):
    """What the pages show: graded verdicts, a validated draft, a published problem's pages."""
    learner, dot = people["learner"], bank[DOT]
    ids = {}
    # A course ada joined, with an assignment of the problem she submits to below.
    course = courses.create_course(user=people["instructor"], title="Remat 101", term="Spring 2026")
    courses.join_course(user=learner, code=course.join_code)
    now = timezone.now()
    assignment = courses.save_assignment(
        course=course,
        title="Week 1",
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=7),
        late_until=now + timedelta(days=9),
        late_penalty_percent=20,
        problems=[dot, bank["checkpoint_names"]],
    )
    ids["course"], ids["assignment"], ids["join_code"] = course.pk, assignment.pk, course.join_code
    # The course came from a learning platform: its roster synced once (one added, one who left)...
    registration = LtiRegistration.objects.create(
        name="LMS",
        issuer="https://lms.example",
        client_id="arena",
        auth_url="https://lms.example/auth",
        token_url="https://lms.example/token",
        keyset_url="https://lms.example/jwks",
    )
    deployment = LtiDeployment.objects.create(registration=registration, deployment_id="1", is_active=True)

    def from_platform(course, context_id):
        context = LtiContext.objects.create(
            deployment=deployment,
            id_on_platform=context_id,
            title=course.title,
            memberships_url=f"https://lms.example/CourseSection/{context_id}/memberships",
        )
        CourseContext.objects.create(context=context, course=course)

    from_platform(course, "remat-101")
    gone = people["gone"]
    courses.join_course(user=gone, code=course.join_code)
    with transaction.atomic():
        courses.deactivate_member(course=course, user=gone)
    RosterSync.objects.create(
        course=course,
        status="done",
        added=["Grace Hopper (grace)"],
        left=["Lin Left (lin)"],
        listed=3,
        finished_at=now,
    )
    # ...and another whose platform could not be reached.
    unreachable = courses.create_course(user=people["instructor"], title="Remat 102", term="Spring 2026")
    from_platform(unreachable, "remat-102")
    RosterSync.objects.create(
        course=unreachable,
        status="failed",
        error="the platform answered 503 for page 1 of the roster",
        finished_at=now,
    )
    ids["unreachable"] = unreachable.pk
    last_term = courses.create_course(user=people["instructor"], title="Remat 100", term="Fall 2025")
    ids["archived"] = courses.archive_course(course=last_term, archived=True).pk
    for name, source in (("accepted", correct_source()), ("violation", no_checkpoint_source())):
        ids[name] = submissions.create_submission(user=learner, problem=dot, source=source, kind="submit").pk
        grade(ids[name])
    ids["inspection"] = submissions.create_submission(
        user=learner, problem=dot, source=correct_source(), kind="inspect"
    ).pk
    assert grade(ids["inspection"]) == "inspected"
    ids["others"] = submissions.create_submission(user=people["other"], problem=dot, source="x", kind="submit").pk
    # grace joins too and hands in ada's code: the similarity check pairs them
    courses.join_course(user=people["other"], code=course.join_code)
    copied = submissions.create_submission(user=people["other"], problem=dot, source=correct_source(), kind="submit")
    grade(copied.pk)
    check = courses.request_similarity_check(assignment=assignment, user=people["instructor"])
    assert check_similarity(check.pk) == "done"
    ids["pair"] = SimilarPair.objects.get(run=check).pk
    # The instructor's own problem, trimmed to two packaged submissions so it validates quickly.
    files = folder_files(copy_package(BANK / "checkpoint_names", tmp_path, "named_tanh"))
    kept = ("submissions/accepted/decorator_two_names.py", "submissions/policy_violation/dots_instead.py")
    files = {k: v for k, v in files.items() if not k.startswith("submissions/") or k in kept}
    draft = authoring.create_draft(user=people["instructor"], files=files)
    run = authoring.request_validation(draft=draft, user=people["instructor"])
    assert validate_draft.apply(args=[run.pk], task_id="validate").get() == "done"
    ids["draft"], ids["validation"] = draft.uuid, run.pk
    ids["bank_draft"] = authoring.start_draft_from_problem(user=people["staff"], problem=dot).uuid
    ids["rejudge"] = authoring.start_rejudge(problem=dot, user=people["staff"]).pk
    exploration = explorer.start(
        user=learner, source=EXAMPLE, function="mlp", args=EXAMPLE_ARGS, budget="400000", problem_slug=DOT
    )
    assert run_exploration.apply(args=[exploration.pk], task_id="explore").get() == "done"
    ids["exploration"] = exploration.pk
    return ids


def visits(url, ids, settings) -> list[Visit]:
    problem = url(f"/problems/{DOT}/")

    def under_the_editor(source, button, shown):
        """The code typed, sent with ``button``, graded, and its result ``shown`` under the editor."""

        def go(page):
            page.goto(problem)
            type_into_editor(page, source)
            page.locator(button).click()
            expect(page.locator("#status")).to_have_text(re.compile("queued|running"))
            latest = Submission.objects.filter(user__username="ada").latest("pk").pk
            grade(latest)
            expect(page.locator("#result-body #verdict")).to_have_text(shown, timeout=60_000)
            return 200

        return go

    solved_under_the_editor = under_the_editor(no_checkpoint_source(), "#submit-button", "policy_violation")
    inspected_under_the_editor = under_the_editor(correct_source(), "#inspect-button", "Inspection finished")

    def rate_limited(page):
        settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "PER_MINUTE": 1}
        # the minute's one submission made just now: the earlier ones may be over a minute old
        # by the time the audit gets here on a busy machine
        ada = Submission.objects.filter(user__username="ada").latest("pk")
        try:
            submissions.create_submission(user=ada.user, problem=ada.problem, source=correct_source(), kind="submit")
        except submissions.RateLimited:
            pass  # one is still in the minute
        return posted_without_script(page, problem, correct_source())

    def database_down(page):
        def refuse(*args, **kwargs):
            raise OperationalError("the database is down")

        backend = type(connections["default"])  # every connection, the live server's thread's too
        real = backend.cursor
        backend.cursor = refuse
        try:
            return opened(page, url("/"))
        finally:
            backend.cursor = real

    def bad_csrf(page):
        page.goto(url("/accounts/login/"))
        with page.expect_navigation() as navigation:
            page.evaluate("""() => { const form = document.querySelector("main form");
                form.querySelector("[name=csrfmiddlewaretoken]").value = "x".repeat(64); form.submit(); }""")
        return navigation.value.status

    def failed_save(page):
        page.goto(url("/authoring/new/"))
        with page.expect_navigation() as navigation:
            page.locator("#save-button").click()
        return navigation.value.status

    def new_token(page):
        page.goto(url("/accounts/tokens/"))
        page.locator("input[name=name]").fill("laptop")
        with page.expect_navigation() as navigation:
            page.locator("#create-token").click()
        return navigation.value.status

    def go(path):
        return lambda page: opened(page, url(path))

    def explore_bad_shapes(page):
        page.goto(url(f"/explore/?problem={DOT}"))
        page.locator("#explore-args").fill("f32[n,4]")
        with page.expect_navigation() as navigation:
            page.locator("#explore-button").click()
        return navigation.value.status

    def wrong_join_code(page):
        page.goto(url("/courses/"))
        page.locator("#id_code").fill("not-a-code")
        with page.expect_navigation() as navigation:
            page.locator("#join-button").click()
        return navigation.value.status

    course = f"/courses/{ids['course']}/"
    assignment = f"{course}assignments/{ids['assignment']}/"

    def search_problems(page):
        status = opened(page, url(f"{course}assignments/new/"))
        page.locator("#problem-search").fill("names")
        expect(page.locator("#problem-search-count")).to_contain_text("shown")
        return status

    def past_due(page):
        page.goto(url(f"{assignment}edit/"))
        page.locator("input[name=due_at]").fill("2026-01-06T09:00")
        page.locator("input[name=opens_at]").fill("2026-01-05T09:00")
        page.locator("input[name=late_until]").fill("")
        with page.expect_navigation() as navigation:
            page.locator("#save-assignment").click()
        return navigation.value.status

    def sync_roster(page):
        page.goto(url(f"/courses/{ids['unreachable']}/"))
        with page.expect_navigation() as navigation:
            page.locator("#sync-roster").click()
        expect(page.locator("#roster-sync-state")).to_have_attribute("data-status", "queued")
        return navigation.value.status

    def weight_out_of_range(page):
        page.goto(url(f"{assignment}edit/"))
        page.locator("#problem-list li:has(input:checked) input[type=number]").first.fill("101")
        # the browser itself refuses 101 (max="100"); the site's own answer is what is audited
        page.evaluate("() => { document.getElementById('assignment-form').noValidate = true; }")
        with page.expect_navigation() as navigation:
            page.locator("#save-assignment").click()
        return navigation.value.status

    return [
        Visit("problem list", "signed out", go("/"), 200),
        Visit("problem page", "signed out", go(f"/problems/{DOT}/"), 200),
        Visit("global leaderboard", "signed out", go("/leaderboard/"), 200),
        Visit("problem leaderboard", "signed out", go(f"/leaderboard/problems/{DOT}/"), 200),
        Visit("profile", "signed out", go("/users/ada/"), 200),
        Visit("log in", "signed out", go("/accounts/login/"), 200),
        Visit("sign up", "signed out", go("/accounts/signup/"), 200),
        Visit("password reset", "signed out", go("/accounts/password/reset/"), 200),
        Visit("password reset, link sent", "signed out", go("/accounts/password/reset/sent/"), 200),
        Visit(
            "password reset, a link that no longer works",
            "signed out",
            go("/accounts/password/reset/MQ/set-password/"),
            200,
        ),
        Visit("password reset, new password saved", "signed out", go("/accounts/password/reset/done/"), 200),
        Visit("404 unknown problem", "signed out", go("/problems/no_such_problem/"), 404),
        Visit("400 bad request", "signed out", go("/?" + "&".join(["x"] * 1001)), 400),
        Visit("403 form expired (CSRF)", "signed out", bad_csrf, 403),
        Visit("503 database down", "signed out", database_down, 503),
        Visit("policy explorer", "signed out", go(f"/explore/?problem={DOT}"), 200),
        Visit("problem list", "learner", go("/"), 200),
        Visit("policy explorer", "learner", go(f"/explore/?problem={DOT}"), 200),
        Visit("policy explorer, bad shapes", "learner", explore_bad_shapes, 400),
        Visit("exploration, plan within a budget", "learner", go(f"/explore/{ids['exploration']}/"), 200),
        Visit("404 unknown exploration", "learner", go("/explore/999999/"), 404),
        Visit("problem page, solved", "learner", go(f"/problems/{DOT}/"), 200),
        Visit("problem list, search results", "learner", go("/?q=scan"), 200),
        Visit("problem list, nothing found", "learner", go("/?q=no+such+word"), 200),
        Visit(
            "two attempts compared",
            "learner",
            go(f"/submissions/compare/?id={ids['accepted']}&id={ids['violation']}"),
            200,
        ),
        Visit("compare, not two attempts", "learner", go(f"/submissions/compare/?id={ids['accepted']}"), 400),
        Visit("problem page, verdict under the editor", "learner", solved_under_the_editor, 200),
        Visit("problem page, inspection under the editor", "learner", inspected_under_the_editor, 200),
        Visit("inspection page, memory picture", "learner", go(f"/submissions/{ids['inspection']}/"), 200),
        Visit("verdict page, policy_violation", "learner", go(f"/submissions/{ids['violation']}/"), 200),
        Visit("verdict page, accepted", "learner", go(f"/submissions/{ids['accepted']}/"), 200),
        Visit("history", "learner", go("/submissions/"), 200),
        Visit("profile", "learner", go("/users/ada/"), 200),
        Visit("global leaderboard", "learner", go("/leaderboard/"), 200),
        Visit("problem leaderboard", "learner", go(f"/leaderboard/problems/{DOT}/"), 200),
        Visit("API tokens", "learner", go("/accounts/tokens/"), 200),
        Visit("API tokens, a new one shown once", "learner", new_token, 200),
        Visit("403 authoring", "learner", go("/authoring/"), 403),
        Visit("404 someone else's submission", "learner", go(f"/submissions/{ids['others']}/"), 404),
        Visit("400 empty code", "learner", lambda page: posted_without_script(page, problem, ""), 400),
        Visit("429 too many submissions", "learner", rate_limited, 429),
        Visit("courses, due soon", "learner", go("/courses/"), 200),
        Visit("course", "learner", go(course), 200),
        Visit("assignment", "learner", go(assignment), 200),
        Visit(
            "problem page, opened from the assignment",
            "learner",
            go(f"/problems/{DOT}/?assignment={ids['assignment']}"),
            200,
        ),
        Visit("join link", "learner", go(f"/courses/join/{ids['join_code']}/"), 200),
        Visit("join, wrong code", "learner", wrong_join_code, 400),
        Visit("404 gradebook", "learner", go(f"{assignment}gradebook/"), 404),
        Visit("404 similar code", "learner", go(f"{assignment}similarity/"), 404),
        Visit("courses", "instructor", go("/courses/"), 200),
        Visit("course: code, roster, problems", "instructor", go(course), 200),
        Visit("course, archived", "instructor", go(f"/courses/{ids['archived']}/"), 200),
        Visit("course, the roster sync failed", "instructor", go(f"/courses/{ids['unreachable']}/"), 200),
        Visit("course, a roster sync queued", "instructor", sync_roster, 200),
        Visit("assignment form, a weight out of range", "instructor", weight_out_of_range, 400),
        Visit("gradebook", "instructor", go(f"{assignment}gradebook/"), 200),
        Visit("assignment form", "instructor", go(f"{assignment}edit/"), 200),
        Visit("new assignment form, problems found by search", "instructor", search_problems, 200),
        Visit("assignment form, a past due time to confirm", "instructor", past_due, 400),
        Visit("course statistics", "instructor", go(f"{assignment}problems/{DOT}/statistics/"), 200),
        Visit("similar code", "instructor", go(f"{assignment}similarity/"), 200),
        Visit("similar code, side by side", "instructor", go(f"{assignment}similarity/{ids['pair']}/"), 200),
        Visit("a learner's submission", "instructor", go(f"{course}submissions/{ids['violation']}/"), 200),
        Visit("authoring index", "instructor", go("/authoring/"), 200),
        Visit("authoring form, new problem", "instructor", go("/authoring/new/"), 200),
        Visit("authoring form, failed save", "instructor", failed_save, 400),
        Visit("authoring form, draft", "instructor", go(f"/authoring/drafts/{ids['draft']}/"), 200),
        Visit("new packaged submission", "instructor", go(f"/authoring/drafts/{ids['draft']}/submissions/new/"), 200),
        Visit("validation, passed", "instructor", go(f"/authoring/validations/{ids['validation']}/"), 200),
        Visit("authoring index", "staff", go("/authoring/"), 200),
        Visit("authoring form, bank problem", "staff", go(f"/authoring/drafts/{ids['bank_draft']}/"), 200),
        Visit("statistics", "staff", go(f"/authoring/problems/{DOT}/statistics/"), 200),
        Visit("published", "staff", go(f"/authoring/problems/{DOT}/published/"), 200),
        Visit("rejudge", "staff", go(f"/authoring/rejudges/{ids['rejudge']}/"), 200),
    ]


# The docs' pictures (docs/learners/): (name, the part a phone's shot starts from, the schemes shot).
SHOTS = {
    ("learner", "problem page, verdict under the editor"): ("problem_page", "#workbench", ("light", "dark")),
    ("signed out", "problem list"): ("home", None, ("light",)),
    ("learner", "problem list, search results"): ("search_results", None, ("light",)),
    ("learner", "problem page, solved"): ("problem_solved", "#after-verdict", ("light",)),
    ("learner", "two attempts compared"): ("compare_attempts", None, ("light",)),
    ("learner", "verdict page, policy_violation"): ("verdict_page", None, ("light",)),
    ("instructor", "authoring form, failed save"): ("authoring_form", None, ("light",)),
}


def report(found: list[Visit]) -> str:
    lines = []
    for visit in found:
        if visit.error:
            lines.append(f"{visit.who:10} {visit.name}: {visit.error}")
            continue
        for width, m in visit.measures.items():
            rules = ", ".join(f"{v['id']} ({v['impact']}, {v['nodes']})" for v in m.serious)
            lines.append(
                f"{visit.who:10} {visit.name} @{width}: sideways {m.sideways_px} px, raw {m.raw_text}, "
                f"{'' if m.in_layout else 'no site navigation, '}serious/critical: {rules or 'none'}"
            )
    return "\n".join(lines)


# What a dark-scheme block of the site's stylesheets may set: colours, and how code tokens are
# drawn (weight, slant, underline), which the colour rules read too.
COLOUR_PROPERTIES = re.compile(
    r"--[\w-]+|color|background(-color)?|border(-\w+)?-color|outline-color|fill|stroke|"
    r"font-style|font-weight|text-decoration"
)


def dark_blocks(css: str) -> list[str]:
    """The bodies of ``@media (prefers-color-scheme: dark)`` blocks in ``css``."""
    blocks = []
    for start in re.finditer(r"@media[^{]*prefers-color-scheme:\s*dark[^{]*\{", css):
        depth, end = 1, start.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        blocks.append(css[start.end() : end - 1])
    return blocks


def test_the_dark_scheme_changes_colours_only():
    """Why the dark view runs only axe-core's colour rules: a dark block that changed a size, a
    display or a position could break what the other rules check in that view alone."""
    static = ROOT / "webplatform" / "static"
    found = {}
    for sheet in sorted(static.rglob("*.css")):
        for block in dark_blocks(sheet.read_text()):
            declarations = re.sub(r"[^{}]*\{([^{}]*)\}", r"\1;", block)  # the rules' bodies
            for name in re.findall(r"([-\w]+)\s*:", declarations):
                found.setdefault(name, sheet.name)
    assert found, "no dark scheme found in the stylesheets: the audit's dark view tests nothing"
    assert {n: f for n, f in found.items() if not COLOUR_PROPERTIES.fullmatch(n)} == {}
    scripts = [p.name for p in static.rglob("*.js") if "prefers-color-scheme" in p.read_text(errors="replace")]
    assert scripts == []  # no script draws differently in the dark


def test_every_page_fits_a_phone_and_a_laptop_and_passes_axe(live_browser, live_server, scenario, people, settings):
    found = visits(lambda path: live_server.url + path, scenario, settings)
    contexts = {
        who: signed_in(live_browser, live_server, people.get(who), viewport={"width": 390, "height": 844})
        for who in ("signed out", "learner", "instructor", "staff")
    }
    # One tab per visitor, each visit starting from the view a new tab has: a new tab per visit
    # started a renderer process per visit, which cost Chromium a third of the audit's CPU. Each
    # visit opens its own page first, and what a tab keeps across pages (its localStorage, cookies)
    # a new tab of the same context shares anyway. A visit that failed closes its tab.
    tabs: dict = {}
    sample = sweeps.fixed_sample((v.who, v.name) for v in found)
    for visit in found:
        if visit.who not in tabs:
            tabs[visit.who] = contexts[visit.who].new_page()
        page = tabs[visit.who]
        page.set_viewport_size({"width": 390, "height": 844})
        page.emulate_media(color_scheme="light")
        try:
            status = visit.go(page)
            if status != visit.status:
                visit.error = f"answered {status}, expected {visit.status}"
            visit.axe = axe_runs_on(visit, page.url, sample)
            for width, scheme in VIEWS:
                page.set_viewport_size({"width": width, "height": 844 if width < 800 else 900})
                page.emulate_media(color_scheme=scheme)
                view = f"{width}" if scheme == "light" else f"{width} {scheme}"
                visit.measures[view] = measure(page, COLOUR_RULES if scheme == "dark" else None, visit.axe)
                name, part, schemes = SHOTS.get((visit.who, visit.name), (None, None, ()))
                if scheme in schemes:
                    if part and width < 800:
                        page.locator(part).evaluate("(part) => part.scrollIntoView({block: 'start'})")
                    page.screenshot(path=str(SCREENSHOTS / f"{name}_{view.replace(' ', '_')}.png"))
                    page.evaluate("() => window.scrollTo(0, 0)")
        except Exception as exc:  # measured as far as it got; reported with the rest
            visit.error = visit.error or f"{type(exc).__name__}: {str(exc)[:300]}"
            tabs.pop(visit.who).close()
    print(f"\naxe-core ran on {sum(v.axe for v in found)} of {len(found)} pages (tests/sweeps.py)")
    if os.environ.get("PAGE_AUDIT_REPORT"):
        Path(os.environ["PAGE_AUDIT_REPORT"]).write_text(
            json.dumps(
                [
                    {
                        "name": v.name,
                        "who": v.who,
                        "error": v.error,
                        "axe": v.axe,
                        "measures": {
                            w: {
                                "sideways_px": m.sideways_px,
                                "raw_text": m.raw_text,
                                "violations": m.violations,
                                "in_layout": m.in_layout,
                            }
                            for w, m in v.measures.items()
                        },
                    }
                    for v in found
                ],
                indent=1,
            )
        )
    failing = [
        v
        for v in found
        if v.error or any(m.sideways_px > 0 or m.raw_text or m.serious or not m.in_layout for m in v.measures.values())
    ]
    assert not failing, report(failing)
