"""The two tutorials, followed step by step in Debian's headless Chromium against the site this
process serves, asserting what each tells its reader they will see.

docs/learners/tutorial.md: a newcomer signs up (the confirmation link comes by mail), opens the
first problem, runs the samples with a plain function, submits it and reads the policy_violation
(no checkpoint), adds a checkpoint without a policy and reads the marked residuals, gives it the
policy the statement asks for and is accepted.

docs/instructors/tutorial.md: an account is given the instructor role, starts a course, sets an
assignment of two problems with weights and a due time, a learner joins with the link and solves
one, and the gradebook shows it; its CSV starts with the columns Canvas and Moodle read.

Screenshots at 390 px and 1366 px (``UPDATE_SCREENSHOTS=1`` writes them into docs/screenshots)."""

import csv
import io
import re
from datetime import datetime, timedelta, timezone

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from playwright.sync_api import expect

from webplatform.courses import services as courses
from webplatform.submissions.models import Submission
from webplatform.submissions.services import create_submission
from webplatform.submissions.tasks import grade_submission

from ..e2e.browser import SCREENSHOTS
from .helpers import correct_source, no_checkpoint_source, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DOT = "checkpoint_dot_policy"
WIDTHS = {1366: 900, 390: 844}
PASSWORD = "a-long-tutorial-password"

# The code the learner tutorial shows, as it shows it.
PLAIN = """import jax
import jax.numpy as jnp


def checkpoint_dot_policy(w1, w2, x):
    y = jax.nn.relu(x @ w1)
    return jnp.sum((y @ w2) ** 2)
"""
CHECKPOINT_NO_POLICY = """import jax
import jax.numpy as jnp


def pipeline(w1, w2, x):
    y = jax.nn.relu(x @ w1)
    return jnp.sum((y @ w2) ** 2)


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(pipeline)(w1, w2, x)
"""
FIXED = CHECKPOINT_NO_POLICY.replace(
    "    return jax.checkpoint(pipeline)(w1, w2, x)\n",
    "    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable\n"
    "    return jax.checkpoint(pipeline, policy=policy)(w1, w2, x)\n",
)


def _shoot(page, name: str, target=None, *, whole: bool = False) -> None:
    """``tutorial_<name>_<width>.png`` at each width: the screen with ``target`` near its top (the
    page's top without one), or ``target`` alone, however tall, when ``whole``."""
    for width, height in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        path = str(SCREENSHOTS / f"tutorial_{name}_{width}.png")
        if whole:
            target.screenshot(path=path)
            continue
        if target is None:
            page.evaluate("window.scrollTo(0, 0)")
        else:
            target.evaluate("(element) => { element.scrollIntoView({block: 'start'}); window.scrollBy(0, -12); }")
        page.screenshot(path=path)
    page.set_viewport_size({"width": 1366, "height": WIDTHS[1366]})


def _graded(page, user, button: str, source: str, verdict: str) -> Submission:
    """Types ``source``, presses ``button`` and grades what it queued as a worker would."""
    page.wait_for_function("() => window.rematEditor !== undefined")
    page.evaluate("(text) => window.rematEditor.setText(text)", source)
    page.locator(button).click()
    expect(page.locator("#status")).to_have_text("queued")
    queued = Submission.objects.filter(user=user).latest("pk")
    grade_submission.apply(args=[queued.pk], task_id=f"tutorial-{queued.pk}")
    expect(page.locator("#result-body #verdict")).to_have_text(verdict, timeout=30_000)
    return queued


def test_the_learner_tutorial(live_browser, live_server, bank, broker, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    mail.outbox = []
    page = live_browser.new_context(viewport={"width": 1366, "height": 900}, color_scheme="light").new_page()

    # 1. Sign up, then confirm the address with the link that comes by mail.
    page.goto(live_server.url + "/accounts/signup/")
    page.fill("input[name=username]", "newcomer")
    page.fill("input[name=email]", "newcomer@example.org")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("#signup-button")
    expect(page.locator("#problems-title")).to_have_text("Problems")
    (letter,) = mail.outbox
    assert letter.subject == "Confirm your e-mail address for Remat Arena"
    link = re.search(r"http://\S+/accounts/email/verify/\S+/", letter.body).group(0)
    page.goto(link)
    page.click("#verify-email-button")
    expect(page.locator("#email-verified")).to_contain_text("newcomer@example.org is confirmed")
    learner = get_user_model().objects.get(username="newcomer")

    # 2. The first problem of the policies section, from the home page: its statement and the editor.
    page.goto(live_server.url + "/")
    expect(page.locator("#start-link")).to_have_text("Checkpoint every layer")
    section = page.locator("section.track-section", has_text="Policies: keep the products, recompute the rest")
    section.get_by_role("link", name="Checkpoint with a save policy").click()
    expect(page.locator("#problem-title")).to_contain_text("Checkpoint with a save policy")
    assert page.url.endswith(f"/problems/{DOT}/")
    expect(page.locator(".statement")).to_contain_text("dots_with_no_batch_dims_saveable")
    _shoot(page, "learner_problem")

    # 3. Run samples with a plain function: the numbers are right on both samples, the verdict is not.
    _graded(page, learner, "#run-button", PLAIN, "policy_violation")
    cases = page.locator("#result-body table.cases tbody tr:not(.case-message-row)")
    expect(cases).to_have_count(2)
    for row, name in zip(cases.all(), ("sample-1", "sample-2")):
        expect(row.locator("td")).to_have_text([name, "policy_violation", "0.00e+00"])
    expect(page.locator("#result-body .timing")).to_contain_text("on the sample cases")

    # 4. Submit it: the cause, in bold, and what to try.
    _graded(page, learner, "#submit-button", PLAIN, "policy_violation")
    cause = page.locator("#result-body #cause .cause-sentence")
    expect(cause).to_contain_text("Your program has no jax.checkpoint")
    expect(page.locator("#result-body #advice")).to_contain_text(
        "Try: wrap the computation in jax.checkpoint(..., "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)"
    )
    expect(page.locator("#result-body #residual-table tr.offending").first).to_contain_text("!!")
    _shoot(page, "learner_no_checkpoint", page.locator("#result"))

    # 5. A checkpoint with no policy: the cause names the policy it means, the table marks what is missing.
    _graded(page, learner, "#submit-button", CHECKPOINT_NO_POLICY, "policy_violation")
    expect(cause).to_contain_text("Your jax.checkpoint (line 11) uses no policy, which means nothing_saveable")
    expect(cause).to_contain_text("where this problem requires dots_with_no_batch_dims_saveable")
    page.click("#result-link")  # the verdict page: the same result, the whole width
    expect(page.locator("#verdict")).to_have_text("policy_violation")
    missing = page.locator("#residual-table tr.missing")
    expect(missing).to_have_count(2)
    expect(missing.nth(0)).to_contain_text("`x @ w1`")
    expect(missing.nth(1)).to_contain_text("`y @ w2`")
    expect(missing.nth(0)).to_contain_text(
        "the dots_with_no_batch_dims_saveable policy saves this; your code recomputes it"
    )
    expect(page.locator("#residual-bytes")).to_contain_text("you keep 1024 bytes fewer (and recompute more)")
    _shoot(page, "learner_residuals", page.locator("#residual-bytes"))
    page.go_back()

    # 6. The policy the statement asks for: accepted, the problem ticked, the next one offered.
    _graded(page, learner, "#submit-button", FIXED, "accepted")
    expect(page.locator("#result-body #message")).to_contain_text("all 4 case(s) passed")
    expect(page.locator("#result-body #residual-bytes")).to_contain_text("the same amount")
    expect(page.locator("#problem-title .solved")).to_have_text("✓ solved")
    expect(page.locator("#next-problem")).to_contain_text("Solved. Next on the track:")
    _shoot(page, "learner_accepted", page.locator("#result"))


def _typed(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def test_the_instructor_tutorial(live_browser, live_server, bank, broker, make_user):
    iris, ada, grace = make_user("iris"), make_user("ada"), make_user("grace")

    # 1. The instructor role, from the command line.
    out = io.StringIO()
    call_command("grant_instructor", "iris", stdout=out)
    assert "iris is an instructor now" in out.getvalue()

    # 2. A course, with its join code and link.
    teacher = signed_in(live_browser, live_server, iris, timezone_id="UTC").new_page()
    teacher.goto(live_server.url + "/courses/")
    teacher.fill("#new-course input[name=title]", "Memory for autodiff")
    teacher.fill("#new-course input[name=term]", "Spring 2027")
    teacher.click("#create-course")
    expect(teacher.locator("h1")).to_contain_text("Memory for autodiff")
    join_link, code = teacher.locator("#join-link").inner_text(), teacher.locator("#join-code").inner_text()
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}", code)
    _shoot(teacher, "instructor_course")

    # 3. An assignment: two problems, the first worth 2, due in a week.
    teacher.click("#new-assignment")
    now = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    teacher.fill("input[name=title]", "Week 1")
    teacher.fill("input[name=opens_at]", _typed(now - timedelta(hours=1)))
    teacher.fill("input[name=due_at]", _typed(now + timedelta(days=7)))
    teacher.check("#problem-choices label:has-text('Checkpoint with a save policy')")
    teacher.check("#problem-choices label:has-text('Save one named value')")
    teacher.fill(f"#weight-{bank[DOT].pk}", "2")
    teacher.fill("#problem-search", "policy")  # the ticked problems stay in view
    _shoot(teacher, "instructor_assignment", teacher.locator("#assignment-form"), whole=True)
    teacher.click("#save-assignment")
    expect(teacher.locator("h1")).to_have_text("Gradebook: Week 1")
    expect(teacher.locator("#gradebook")).to_contain_text("No learner has joined yet")

    # 4. A learner follows the join link and solves the first problem from the assignment's page.
    learner = signed_in(live_browser, live_server, ada, timezone_id="UTC").new_page()
    learner.goto(join_link)
    learner.click("#join-button")
    expect(learner.locator("h1")).to_contain_text("Memory for autodiff")
    learner.locator("#assignments a:has-text('Week 1')").click()
    expect(learner.locator("#assignment-state")).to_have_text("open")
    learner.click("#my-problems a:has-text('Checkpoint with a save policy')")
    _graded(learner, ada, "#submit-button", correct_source(), "accepted")
    learner.go_back()
    learner.reload()
    expect(learner.locator("#my-standing")).to_contain_text("2 of 3")
    _shoot(learner, "instructor_learner_view")
    # A second learner joins with the code and submits a plain function (as the learner tutorial's reader does).
    courses.join_course(user=grace, code=code.lower())
    attempt = create_submission(user=grace, problem=bank[DOT], source=no_checkpoint_source(), kind="submit")
    grade_submission.apply(args=[attempt.pk], task_id=f"tutorial-{attempt.pk}")

    # 5. The gradebook, and its CSV.
    teacher.reload()
    row = teacher.locator("#gradebook tr[data-user=ada]")
    expect(row.locator("td.cell").nth(0)).to_contain_text("accepted")
    expect(row.locator("td.cell").nth(0)).to_contain_text("on time")
    expect(row.locator("td.points")).to_have_text("2 / 3")
    other = teacher.locator("#gradebook tr[data-user=grace]")
    expect(other.locator("td.cell").nth(0)).to_contain_text("policy_violation")
    expect(other.locator("td.points")).to_have_text("0 / 3")
    _shoot(teacher, "instructor_gradebook")
    with teacher.expect_download() as download:
        teacher.click("#export-csv")
    with open(download.value.path(), newline="") as handle:
        rows = list(csv.DictReader(handle))
    header = list(rows[0])
    assert header[:7] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "username", "email"]
    assert {"points", "out of", "percent"} <= set(header)
    by_name = {row["Student"]: row for row in rows}
    assert (by_name["ada"]["points"], by_name["ada"]["out of"], by_name["ada"]["percent"]) == ("2.0", "3", "66.7")
    assert by_name["grace"]["Checkpoint with a save policy: status"] == "policy violation"

    # 6. Similar code: the page the gradebook links to.
    teacher.click("#similarity-link")
    expect(teacher.locator("h1")).to_have_text("Similar code: Week 1")
    expect(teacher.locator("#run-similarity")).to_have_text("Check now")
