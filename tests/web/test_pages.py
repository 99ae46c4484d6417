"""What a learner sees: the problem list, the problem page, run/submit, the verdict page."""

import re

import pytest
from django.urls import reverse

from judge.data.report import Report
from webplatform.catalog.rendering import render_markdown
from webplatform.submissions import services
from webplatform.submissions.models import Submission

from .helpers import correct_source

pytestmark = pytest.mark.django_db


def finish(submission, verdict, **report):
    """Marks a submission graded, as the worker would."""
    claimed = services.claim_submission(submission_id=submission.pk, task_id=f"t{submission.pk}")
    services.complete_submission(
        submission_id=submission.pk,
        attempt=claimed.attempts,
        report=Report.from_dict({"verdict": verdict, "message": f"{verdict}!", **report}),
    )


def submit(user, problem, kind="submit"):
    return services.create_submission(user=user, problem=problem, source=correct_source(), kind=kind)


def rows(html: str) -> dict:
    """{slug: row html} of the problem list."""
    return dict(re.findall(r'<tr data-slug="(\w+)">(.*?)</tr>', html, re.S))


def test_the_problem_list_shows_difficulty_tags_acceptance_and_my_solved_mark(
    client, bank, learner, other_learner, dot_policy
):
    for user, verdict in (
        (learner, "accepted"),
        (other_learner, "wrong_answer"),
        (other_learner, "accepted"),
        (other_learner, "policy_violation"),
    ):
        finish(submit(user, dot_policy), verdict)
    finish(submit(other_learner, dot_policy, kind="run"), "accepted")  # sample runs do not count
    client.force_login(learner)
    html = client.get(reverse("practice:problem_list")).content.decode()
    listed = rows(html)
    assert set(listed) == set(bank)
    dots = listed["checkpoint_dot_policy"]
    assert "Checkpoint with a save policy" in dots and 'class="difficulty medium"' in dots
    assert all(f"?tag={t}" in dots for t in ("dots", "mlp", "policies"))
    assert "50% <small>(2/4)</small>" in dots and 'title="solved"' in dots
    assert 'title="solved"' not in listed["checkpoint_names"] and "no submissions yet" in listed["checkpoint_names"]
    client.force_login(other_learner)
    assert (
        'title="solved"' in rows(client.get(reverse("practice:problem_list")).content.decode())["checkpoint_dot_policy"]
    )


def test_the_problem_list_filters_by_tag_and_difficulty(client, bank):
    url = reverse("practice:problem_list")
    by_tag = rows(client.get(url, {"tag": "policies"}).content.decode())
    assert set(by_tag) == {p.slug for p in bank.values() if "policies" in p.current_version.tags}
    assert "checkpoint_dot_policy" in by_tag
    hard = rows(client.get(url, {"difficulty": "hard"}).content.decode())
    assert set(hard) == {p.slug for p in bank.values() if p.difficulty == "hard"}
    both = rows(client.get(url, {"difficulty": "easy", "tag": "dots"}).content.decode())
    assert set(both) == {p.slug for p in bank.values() if p.difficulty == "easy" and "dots" in p.current_version.tags}


def test_anyone_can_read_a_problem_page_with_statement_signature_samples_and_starter(client, dot_policy):
    html = client.get(reverse("practice:problem_detail", args=["checkpoint_dot_policy"])).content.decode()
    assert '<h1 id="problem-title">Checkpoint with a save policy' in html
    assert html.count("Checkpoint with a save policy</h1>") == 0  # the statement's own title is not repeated
    assert "<h2>Why it matters</h2>" in html
    assert "checkpoint_dot_policy(w1: f32[d,d], w2: f32[d,d], x: f32[N,d])" in html
    assert '<span class="math-display">\\mathrm{out} = \\sum' in html  # TeX kept for KaTeX
    assert "<td>sample-1</td>" in html and "x: 8×16" in html
    assert "raise NotImplementedError" in html  # the starter code, for the editor
    assert "Log in to run or submit" in html and 'id="solve-form"' not in html
    assert "vendor/editor.js" in html and "vendor/katex/katex.min.js" in html


def test_the_problem_list_shows_no_template_text(client, bank):
    html = client.get(reverse("practice:problem_list")).content.decode()
    assert not re.search(r"\{#|#\}|\{%|%\}", html)


def test_the_problem_page_works_without_javascript_and_says_how_to_use_its_editor(learner_client, dot_policy):
    """A plain text area holding the starter is the editor until the script replaces it (and what
    is sent either way); the keys of the editor and the shortcuts are said next to it."""
    html = learner_client.get(reverse("practice:problem_detail", args=["checkpoint_dot_policy"])).content.decode()
    form = html.split('id="solve-form"', 1)[1].split("</form>", 1)[0]
    area = re.search(r'<textarea name="source" id="source"[^>]*>(.*?)</textarea>', form, re.S)
    assert area and "raise NotImplementedError" in area.group(1) and "hidden" not in area.group(0)
    assert 'aria-labelledby="editor-title"' in area.group(0) and 'data-label="Your code"' in html
    assert "press <kbd>Esc</kbd> then <kbd>Tab</kbd>" in html
    assert 'aria-keyshortcuts="Control+Enter Meta+Enter">Run samples' in form
    assert 'aria-keyshortcuts="Control+Shift+Enter Meta+Shift+Enter">Submit' in form
    assert '<a class="skip-link" href="#source">Skip to the editor</a>' in html


def test_a_statement_table_comes_in_a_box_that_scrolls_on_its_own():
    html = render_markdown("| policy | saves |\n| --- | --- |\n| dots_saveable | matmuls |\n")
    assert html.startswith('<div class="scroll-x"><table>') and html.rstrip().endswith("</table>\n</div>")


def test_running_or_submitting_needs_a_login(client, dot_policy):
    response = client.post(reverse("submissions:submit", args=["checkpoint_dot_policy"]), {"source": "x = 1"})
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))
    assert not Submission.objects.exists()


def test_submit_records_an_attempt_and_answers_with_its_status_urls(learner_client, dot_policy, broker):
    response = learner_client.post(
        reverse("submissions:submit", args=["checkpoint_dot_policy"]),
        {"source": correct_source()},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 201
    data = response.json()
    submission = Submission.objects.get(pk=data["id"])
    assert (submission.kind, submission.status, data["status"], data["done"]) == ("submit", "queued", "queued", False)
    assert data["status_url"] == reverse("submissions:status", args=[submission.pk])
    status = learner_client.get(data["status_url"]).json()
    assert status["status"] == "queued" and "result_html" not in status


def test_run_samples_without_javascript_redirects_to_the_verdict_page(learner_client, dot_policy, broker):
    response = learner_client.post(
        reverse("submissions:run", args=["checkpoint_dot_policy"]), {"source": correct_source()}
    )
    submission = Submission.objects.get()
    assert submission.kind == "run"
    assert response.status_code == 302 and response.url == reverse("submissions:detail", args=[submission.pk])


def test_an_empty_submission_is_refused_with_a_reason(learner_client, dot_policy):
    response = learner_client.post(
        reverse("submissions:submit", args=["checkpoint_dot_policy"]), {"source": "  "}, HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 400 and "empty" in response.json()["error"]


REPORT = {
    "cases": [
        {"name": "sample-1", "sample": True, "verdict": "policy_violation", "message": "relu saved", "max_error": 0.0}
    ],
    "residuals": [
        {
            "kind": "argument",
            "what": "x",
            "type": "f32[8,16]",
            "bytes": 512,
            "line": None,
            "offending": False,
            "reason": "",
        },
        {
            "kind": "primitive",
            "what": "relu",
            "type": "f32[8,16]",
            "bytes": 512,
            "line": 6,
            "offending": True,
            "reason": "the policy recomputes this; your code saved it",
        },
    ],
    "missing_residuals": [
        {
            "kind": "primitive",
            "what": "dot_general",
            "type": "f32[8,16]",
            "bytes": 512,
            "line": None,
            "reason": "the policy saves this; your code recomputes it",
        }
    ],
    "reference_residuals": [
        {"kind": "argument", "what": "x", "type": "f32[8,16]", "bytes": 512, "line": None},
        {"kind": "primitive", "what": "dot_general", "type": "f32[8,16]", "bytes": 512, "line": 6},
    ],
    "residual_bytes": 1536,
    "reference_residual_bytes": 1024,
    "structure": {"checkpoints": [{"policy_text": "nothing_saveable", "line": 4, "depth": 0}]},
    "programs": {"forward": "{ lambda ; a:f32[8,16]. let FORWARD }", "backward": "{ lambda ; b. let BACKWARD }"},
    "stdout": "hello from print",
    "time_s": 1.25,
    "notes": [],
}


def test_the_verdict_page_shows_cases_residuals_side_by_side_programs_timing_and_code(
    learner_client, learner, dot_policy
):
    submission = submit(learner, dot_policy)
    finish(submission, "policy_violation", **REPORT)
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    assert 'id="verdict">policy_violation</span>' in html and "policy_violation!" in html
    assert "<td>sample-1</td>" in html and "relu saved" in html
    yours = html[html.index('id="residual-table"') : html.index('id="required-residual-table"')]
    assert re.search(r'<tr class="offending">\s*<td>!!</td>.*?output of relu.*?your code saved it', yours, re.S)
    assert re.search(r'<tr class="offending missing">\s*<td>missing</td>.*?output of dot_general', yours, re.S)
    required = html[html.index('id="required-residual-table"') :]
    assert "argument x" in required.split("</table>")[0] and "output of dot_general" in required.split("</table>")[0]
    assert "yours <strong>1536 bytes</strong>" in html and "you keep 512 bytes more than needed" in html
    assert "FORWARD" in html and "BACKWARD" in html and "hello from print" in html
    assert "Graded in 1.25 s" in html and "policy <code>nothing_saveable</code>" in html
    assert "jnp.dot(x, w1)" in html  # the submitted code


EXPLAINED = REPORT | {
    "cause": "Your program has no jax.checkpoint, so reverse mode saves every intermediate value its backward "
    "pass needs; this problem requires jax.checkpoint with policy=dots_with_no_batch_dims_saveable.",
    "advice": "Try: wrap the computation in jax.checkpoint(...).",
    "residuals": [
        {
            "kind": "argument",
            "what": "x",
            "type": "f32[8,16]",
            "bytes": 512,
            "line": None,
            "offending": False,
            "reason": "",
        },
        *(
            {
                "kind": "primitive",
                "what": what,
                "type": kind,
                "bytes": size,
                "line": 6,
                "expr": "jax.nn.relu(x @ w1)",
                "op": "relu",
                "in_terms": True,
                "offending": True,
                "reason": "the policy recomputes this; your code saved it",
            }
            for what, kind, size in (
                ("gt", "bool[8,16]", 128),
                ("relu", "f32[8,16]", 512),
                ("broadcast_in_dim", "f32[8,16]", 512),
            )
        ),
    ],
    "missing_residuals": [
        {
            "kind": "primitive",
            "what": "dot_general",
            "type": "f32[8,16]",
            "bytes": 512,
            "line": None,
            "expr": "x @ w1",
            "op": "@",
            "in_terms": True,
            "reason": "the policy saves this; your code recomputes it",
        }
    ],
}


def test_the_verdict_page_says_the_cause_first_and_folds_a_derivative_rules_values(learner_client, learner, dot_policy):
    submission = submit(learner, dot_policy)
    finish(submission, "policy_violation", **EXPLAINED)
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    assert html.index('id="cause"') < html.index('id="residual-table"')
    assert "{#" not in html and "endcomment" not in html  # the partials' notes stay in the templates
    assert "Your program has no jax.checkpoint" in html and 'id="advice">Try: wrap' in html
    yours = html[html.index('id="residual-table"') : html.index('id="required-residual-table"')]
    rows = re.findall(r"<tr class=\"offending[^\"]*\">(.*?)</tr>", yours, re.S)
    assert len(rows) == 2  # relu's output with its rule's two values folded under it, and the missing matmul
    relu, matmul = rows
    assert "`jax.nn.relu(x @ w1)` (relu)" in relu and "<td>1152</td>" in relu
    shown, folded = relu.split("<details")
    assert "gt" not in shown and "broadcast_in_dim" not in shown  # JAX's operations: on demand only
    assert "2 more values from this expression" in folded and "output of gt" in folded
    assert "`x @ w1` (@)" in matmul and "dot_general" not in matmul
    assert "argument x (an input, kept)" in yours


def test_the_status_endpoint_carries_the_result_once_done(learner_client, learner, dot_policy):
    submission = submit(learner, dot_policy)
    finish(submission, "policy_violation", **REPORT)
    data = learner_client.get(reverse("submissions:status", args=[submission.pk])).json()
    assert data["done"] and data["verdict"] == "policy_violation"
    assert 'id="residual-table"' in data["result_html"]


def test_history_lists_my_attempts_newest_first(learner_client, learner, other_learner, dot_policy):
    mine = [submit(learner, dot_policy, kind=k) for k in ("run", "submit")]
    theirs = submit(other_learner, dot_policy)
    html = learner_client.get(reverse("submissions:history")).content.decode()
    listed = [int(n) for n in re.findall(r'href="/submissions/(\d+)/"', html)]
    assert listed == [mine[1].pk, mine[0].pk] and theirs.pk not in listed
    only_submits = learner_client.get(reverse("submissions:history"), {"kind": "submit"}).content.decode()
    assert [int(n) for n in re.findall(r'href="/submissions/(\d+)/"', only_submits)] == [mine[1].pk]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Inline $a_1 * b_2$ math.", '<span class="math-inline">a_1 * b_2</span>'),
        ("$$ \\sum_i x_i^2 $$", '<span class="math-display">\\sum_i x_i^2</span>'),
        ("Costs $5 and $6 each.", "Costs $5 and $6 each."),  # prices are not math
        ("`x = $a$`", "<code>x = $a$</code>"),  # code is left alone
        ("$a < b$", '<span class="math-inline">a &lt; b</span>'),
        # Statements are written in the browser now: no raw HTML or script URL reaches a learner.
        ("Hi <script>alert(1)</script>", "Hi &lt;script&gt;alert(1)&lt;/script&gt;"),
        ('<div onclick="x">block</div>', '<p>&lt;div onclick="x"&gt;block&lt;/div&gt;</p>'),
        (
            "[x](javascript:alert(1)) [y](https://jax.dev/) ![i](data:text/html,x)",
            '<a href="#">x</a> <a href="https://jax.dev/">y</a> <img alt="i" src="#">',
        ),
    ],
)
def test_markdown_keeps_math_for_katex_and_leaves_code_alone(text, expected):
    assert expected in render_markdown(text)


CAUSE = EXPLAINED["cause"]
ADVICE = EXPLAINED["advice"]
DIFFERENCES = (
    "Differences: f32[8,16] from `jax.nn.relu(x @ w1)` (relu) at line 6 (with 2 more value(s) it makes: "
    "1152 bytes in all): the dots_with_no_batch_dims_saveable policy recomputes this; your code saved it"
)
# As the judge writes them (judge/grading/grader.py): the message is the first failing case's, prefixed with
# its name; a second sample fails for the same cause on other shapes, a hidden case in its own words.
AS_GRADED = EXPLAINED | {
    "message": f"case sample-1: {CAUSE} {ADVICE} {DIFFERENCES}",
    "cases": [
        {
            "name": "sample-1",
            "sample": True,
            "verdict": "policy_violation",
            "message": f"{CAUSE} {ADVICE} {DIFFERENCES}",
            "max_error": 0.0,
        },
        {
            "name": "sample-2",
            "sample": True,
            "verdict": "policy_violation",
            "message": f"{CAUSE} {ADVICE} {DIFFERENCES.replace('f32[8,16]', 'f32[4,4]')}",
            "max_error": 0.0,
        },
        {
            "name": "tall",
            "sample": False,
            "verdict": "policy_violation",
            "max_error": 0.0,
            "message": "Your program has no jax.checkpoint; your program keeps for its backward pass values that the "
            "required checkpointing does not keep.",
        },
    ],
}


def test_the_result_opens_with_the_verdict_the_cause_and_what_to_try_then_the_rest(learner_client, learner, dot_policy):
    """Issue 23: the result opened with a 600-character block ("case sample-1: ...") and the Cases
    table repeated it once per case, so the cause was below the fold."""
    submission = submit(learner, dot_policy)
    finish(submission, "policy_violation", **AS_GRADED)
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    body = html[html.index('id="result-body"') :]
    places = [
        body.index(marker)
        for marker in (
            'id="verdict">policy_violation<',
            f'<p class="cause-sentence"><strong>{CAUSE}</strong></p>',
            f'<p class="advice" id="advice">{ADVICE}</p>',
            "On case sample-1: Differences: f32[8,16] from",
            'id="cases-title"',
            'id="residual-table"',
            'id="forward-program"',
        )
    ]
    assert places == sorted(places)
    assert body.count(CAUSE) == 1 and body.count(ADVICE) == 1  # said once, not once per case
    assert "case sample-1: Your" not in body  # the judge's prefix does not come before the cause
    cases = body[body.index('id="cases-title"') : body.index("</table>")]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", cases.split("<tbody>")[1], re.S)
    assert len(rows) == 3 + 2  # a row per case, and one under each case that says more than the lead
    assert "<td>sample-1</td>" in rows[0] and "sample-2" in rows[1]  # sample-1: the lead's own case, nothing more
    assert "same cause as above" in rows[2] and "f32[4,4]" in rows[2].split("<details")[1]  # what it adds: folded
    assert '<td>tall <span class="meta">(hidden)</span></td>' in rows[3]
    own = rows[4].split("<details", 1)
    assert "Your program has no jax.checkpoint; your program keeps for…" in own[1].split("</summary>")[0]
    assert "does not keep." in own[1].split("</summary>")[1]  # a long message of its own, folded


def test_without_a_cause_from_the_judge_the_messages_first_sentence_leads(learner_client, learner, dot_policy):
    submission = submit(learner, dot_policy)
    message = (
        "the output differs at index (): got 32.849827, expected 84.560181 (max abs error 51.7). "
        "Try: square the sum. Gradients were not compared."
    )
    finish(
        submission,
        "wrong_answer",
        message=f"case sample-1: {message}",
        cases=[
            {"name": "sample-1", "sample": True, "verdict": "wrong_answer", "message": message, "max_error": 51.7},
            {
                "name": "sample-2",
                "sample": True,
                "verdict": "runtime_error",
                "message": "not run (an earlier case failed)",
                "max_error": None,
            },
        ],
    )
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    assert (
        '<p class="cause-sentence"><strong>the output differs at index (): got 32.849827, expected 84.560181 '
        "(max abs error 51.7).</strong></p>" in html
    )
    assert 'id="advice">Try: square the sum.</p>' in html
    assert 'id="message-rest">On case sample-1: Gradients were not compared.</p>' in html
    assert re.search(
        r'class="case-message"><span class="visually-hidden">Case sample-2: </span>'
        r"not run \(an earlier case failed\)",
        html,
    )


def test_a_cause_worded_apart_from_the_message_leads_and_the_message_follows_whole(learner_client, learner, dot_policy):
    """A runtime error's cause is the judge's own words; the raw error follows it, nothing dropped."""
    submission = submit(learner, dot_policy)
    raw = "TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[]. (line 7)"
    finish(
        submission,
        "runtime_error",
        message=f"case sample-1: {raw}",
        cause="Your code uses a traced value as a Python bool at line 7.",
        advice="Try: mark the flag static (static_argnums) or use jnp.where.",
    )
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    body = html[html.index('id="result-body"') :]
    places = [
        body.index(marker)
        for marker in ("uses a traced value as a Python bool", "Try: mark the flag static", f"On case sample-1: {raw}")
    ]
    assert places == sorted(places)


def test_a_case_named_without_more_to_say_is_a_sentence_not_a_fragment(learner_client, learner, dot_policy):
    """ "On case sample-1." stood alone under the cause: the case is named in a whole sentence."""
    from webplatform.submissions.models import Submission

    message = "case sample-1: Your program has no jax.checkpoint."
    cases = [
        {"name": "sample-1", "sample": True, "verdict": "policy_violation", "message": "x", "max_error": 0.0},
        {"name": "sample-2", "sample": True, "verdict": "policy_violation", "message": "x", "max_error": 0.0},
    ]
    submission = Submission.objects.create(
        user=learner,
        problem=dot_policy,
        version=dot_policy.current_version,
        source="x",
        status="done",
        verdict="policy_violation",
        message=message,
        report={
            "problem": dot_policy.slug,
            "verdict": "policy_violation",
            "message": message,
            "cause": "Your program has no jax.checkpoint.",
            "cases": cases,
        },
    )
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    rest = html[html.index('id="message-rest">') :].split("</p>")[0]
    assert "The judge found this on case sample-1; the table below shows every case." in rest
    assert "On case sample-1." not in html
