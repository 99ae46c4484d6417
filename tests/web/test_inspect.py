"""Inspect before submitting: the problem page's third action runs the learner's code on the
sample shapes through the same worker path as "Run samples" (a QUICK-lane message, the grading
task, the judge's runner) and shows what it saves, its checkpoints, the operations of both passes
and the memory picture; no verdict, nothing in rankings or progress, a rate limit of its own."""

import re

import pytest
from django.urls import reverse

from judge import load_problem
from webplatform.leaderboard import selectors as leaderboard
from webplatform.leaderboard.models import Progress
from webplatform.submissions import selectors, services
from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from .helpers import BANK, correct_source, no_checkpoint_source

pytestmark = pytest.mark.django_db


def inspect(client, problem, source):
    return client.post(
        reverse("submissions:inspect", args=[problem.slug]), {"source": source}, HTTP_ACCEPT="application/json"
    )


def test_inspect_goes_through_the_quick_lane_and_shows_what_the_code_saves(
    learner_client, learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        answer = inspect(learner_client, dot_policy, no_checkpoint_source())
    assert answer.status_code == 201
    inspection = Submission.objects.get(pk=answer.json()["id"])
    assert (inspection.kind, inspection.lane) == ("inspect", "quick")
    [message] = broker.messages("cpu")
    assert message["task"] == services.GRADE_TASK and message["args"] == [inspection.pk]
    assert message["priority"] == 3  # the quick lane's, as "Run samples"
    assert grade_submission.apply(args=[inspection.pk], task_id="m").get() == "inspected"
    inspection.refresh_from_db()
    assert (inspection.status, inspection.verdict) == ("done", "")
    html = learner_client.get(reverse("submissions:status", args=[inspection.pk])).json()["result_html"]
    assert "inspected" in html and "no verdict" in html
    assert 'id="residual-table"' in html and "jax.nn.relu(x @ w1)` (relu)" in html  # what it saves, in their terms
    assert "required-residual-table" not in html and "!!" not in html  # nothing is judged
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="memory-picture"' in html
    assert re.search(r"<title id=\"memory-yours-title\">Your gradient step&#x27;s memory</title>", html)
    assert "backward pass recomputes 0 operations" in html  # no checkpoint: nothing recomputed
    assert 'id="forward-operations"' in html and 'id="backward-operations"' in html


def test_the_picture_marks_what_a_checkpoint_recomputes_and_names_its_policy(learner_client, dot_policy, broker):
    answer = inspect(learner_client, dot_policy, correct_source())
    grade_submission.apply(args=[answer.json()["id"]], task_id="m").get()
    html = learner_client.get(reverse("submissions:detail", args=[answer.json()["id"]])).content.decode()
    assert "policy <code>dots_with_no_batch_dims_saveable</code>" in html
    recomputed = re.findall(r'<tr class="recomputed"><td><code>(\w+)</code></td><td>(\d*)</td>', html)
    assert ("max", "9") in recomputed  # the relu the policy drops, made again at the learner's line
    assert 'class="mp-recompute"' in html and "<title>max, line 9</title>" in html


def test_inspect_records_nothing_in_rankings_or_progress(learner, learner_client, dot_policy, broker):
    answer = inspect(learner_client, dot_policy, correct_source())
    grade_submission.apply(args=[answer.json()["id"]], task_id="m").get()
    assert not Progress.objects.filter(user=learner).exists()
    assert not selectors.has_solved(user=learner, problem=dot_policy)
    assert not leaderboard.counted_submissions().filter(user=learner).exists()
    assert leaderboard.problem_board(dot_policy).standing_of(learner) is None


def test_inspect_has_a_limit_of_its_own(learner, learner_client, dot_policy, settings):
    settings.SUBMISSION_LIMITS = {
        **settings.SUBMISSION_LIMITS,
        "INSPECTS_PER_MINUTE": 2,
        "RUNS_PER_MINUTE": 1,
        "PER_MINUTE": 1,
    }
    assert settings.SUBMISSION_LIMITS["INSPECTS_PER_MINUTE"] == 2
    for _ in range(2):
        assert inspect(learner_client, dot_policy, correct_source()).status_code == 201
    refused = inspect(learner_client, dot_policy, correct_source())
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert refused.json()["error"].startswith(
        "You have inspected your code 2 times in the last minute, the most allowed (2 a minute)."
    )
    # inspecting used up neither the runs nor the submissions, and they use up no inspection
    for kind in ("run", "submit"):
        services.create_submission(user=learner, problem=dot_policy, source=correct_source(), kind=kind)
    with pytest.raises(services.RateLimited, match="You have run the samples once"):
        services.create_submission(user=learner, problem=dot_policy, source=correct_source(), kind="run")


def test_a_default_of_twenty_inspections_a_minute(settings):
    assert settings.SUBMISSION_LIMITS["INSPECTS_PER_MINUTE"] == 20


def test_the_verdict_page_draws_the_learners_memory_beside_the_references_curve(
    learner_client, learner, dot_policy, broker
):
    submission = services.create_submission(
        user=learner, problem=dot_policy, source=no_checkpoint_source(), kind="submit"
    )
    assert grade_submission.apply(args=[submission.pk], task_id="m").get() == "policy_violation"
    html = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    assert 'id="memory-yours"' in html and 'id="memory-reference"' in html
    reference = html[html.index('id="memory-reference"') :]
    reference = reference[: reference.index("</svg>")]
    assert not re.search(r"line \d", reference)  # no line of the reference's code
    assert "output of" not in reference and "dot_general" not in reference  # nor what it saves


def test_the_history_and_recent_attempts_say_inspected_not_an_empty_verdict(
    learner_client, learner, dot_policy, broker
):
    answer = inspect(learner_client, dot_policy, correct_source())
    grade_submission.apply(args=[answer.json()["id"]], task_id="m").get()
    history = learner_client.get(reverse("submissions:history"), {"kind": "inspect"}).content.decode()
    assert '<span class="status done">inspected</span>' in history and "inspections only" in history
    page = learner_client.get(reverse("practice:problem_detail", args=[dot_policy.slug])).content.decode()
    assert 'id="inspect-button"' in page and '<span class="status done">inspected</span>' in page
    detail = learner_client.get(reverse("submissions:detail", args=[answer.json()["id"]])).content.decode()
    assert re.search(r'<span id="status" class="status inspected">Inspection finished</span>', detail)


def test_an_inspection_does_not_look_like_a_verdict(learner_client, dot_policy, broker):
    """Issue 23: an inspection said "Status: done" in an error-coloured box and linked to a "verdict
    page"; it finishes, in neutral colours, and its page is the inspection's."""
    answer = inspect(learner_client, dot_policy, no_checkpoint_source())
    grade_submission.apply(args=[answer.json()["id"]], task_id="m").get()
    result = learner_client.get(reverse("submissions:status", args=[answer.json()["id"]])).json()["result_html"]
    detail = learner_client.get(reverse("submissions:detail", args=[answer.json()["id"]])).content.decode()
    for html in (result, detail):
        assert 'id="verdict">Inspection finished</span>' in html
        assert 'class="message"' not in html and "verdict " not in html.split('id="result-body"')[-1][:300]
        assert re.search(
            r'<p class="inspection-summary" id="message">On the sample case sample-1: your code saves '
            r"\d+ residuals, \d+ bytes\.</p>",
            html,
        )
    assert ">done<" not in detail and "<h1>Inspection " in detail


def test_the_memory_picture_says_what_the_policy_controls_and_why_recomputing_can_peak_higher(
    learner_client, learner, dot_policy, broker
):
    """Issue 23: the right answer peaked higher than no checkpoint and the picture said nothing of why."""
    right = services.create_submission(user=learner, problem=dot_policy, source=correct_source(), kind="submit")
    assert grade_submission.apply(args=[right.pk], task_id="m").get() == "accepted"
    html = learner_client.get(reverse("submissions:detail", args=[right.pk])).content.decode()
    figures = " ".join(html[html.index('id="memory-figures"') :].split("</p>")[0].split())
    peak, reference_peak = map(
        int, re.search(r"Peak memory: <strong>(\d+) bytes</strong> \(the reference's (\d+)\)", figures).groups()
    )
    held, reference_held = map(
        int,
        re.search(
            r"Held between the passes, the saved residuals \(what the policy "
            r"controls\): <strong>(\d+) bytes</strong> \(the reference's (\d+)\)",
            figures,
        ).groups(),
    )
    right.refresh_from_db()
    assert held == right.report["residual_bytes"] == reference_held == 3584  # the dots policy's five residuals
    # one peak for one program: the figure, the curve's highest point, the verdict's cost, the leaderboard's column
    assert peak == right.report["cost"]["peak_bytes"] == right.peak_bytes
    assert peak > held and reference_peak > reference_held
    assert f"peak {peak} bytes</text>" in html.split('id="memory-yours"')[1].split("</svg>")[0]  # the curve's own
    why = html[html.index('id="memory-why"') :].split("</p>")[0]
    assert "recomputed values live at the same time as the backward pass's own values" in " ".join(why.split())
    # without a checkpoint nothing is recomputed, by the learner's code or (on an inspection) any other
    answer = inspect(learner_client, dot_policy, no_checkpoint_source())
    grade_submission.apply(args=[answer.json()["id"]], task_id="n").get()
    inspected = learner_client.get(reverse("submissions:detail", args=[answer.json()["id"]])).content.decode()
    assert 'id="memory-why"' not in inspected
    assert "what the policy controls): <strong>4224 bytes</strong>." in " ".join(inspected.split())
    # a verdict page beside a reference that recomputes: the note says whose step recomputes
    plain = services.create_submission(user=learner, problem=dot_policy, source=no_checkpoint_source(), kind="submit")
    assert grade_submission.apply(args=[plain.pk], task_id="p").get() == "policy_violation"
    page = learner_client.get(reverse("submissions:detail", args=[plain.pk])).content.decode()
    why = " ".join(page[page.index('id="memory-why"') :].split("</p>")[0].split())
    assert "Your step recomputes nothing in its backward pass; the reference's does." in why
    assert "On a small example recomputing can raise the peak" not in why


def test_one_peak_everywhere_and_the_budget_beside_it_on_inspect_and_on_a_verdict(
    learner, learner_client, bank, broker
):
    """A step had three peaks (as drawn, compiled, the leaderboard's XLA peak) and Inspect never said
    how it stood against the problem's budget: now the verifier's peak is the one figure, and the
    limit is drawn on the picture and stated beside the figure, on Inspect as on a verdict."""
    budget = bank["fit_the_budget"]
    limit = load_problem(BANK / "fit_the_budget").cost_rules.max_peak_bytes
    source = (BANK / "fit_the_budget" / "reference.py").read_text()
    answer = inspect(learner_client, budget, source)
    grade_submission.apply(args=[answer.json()["id"]], task_id="b1").get()
    recorded = services.create_submission(user=learner, problem=budget, source=source, kind="submit")
    assert grade_submission.apply(args=[recorded.pk], task_id="b2").get() == "accepted"
    recorded.refresh_from_db()
    pages = {
        "inspect": learner_client.get(reverse("submissions:detail", args=[answer.json()["id"]])).content.decode(),
        "verdict": learner_client.get(reverse("submissions:detail", args=[recorded.pk])).content.decode(),
    }
    for name, html in pages.items():
        figures = " ".join(html[html.index('id="memory-figures"') :].split("</p>")[0].split())
        found = re.search(
            r"Peak memory: <strong>(\d+) bytes</strong>.*this problem allows at most (\d+), (\d+) bytes under", figures
        )
        assert found, (name, figures)
        peak, allowed, under = map(int, found.groups())
        assert allowed == limit and under == limit - peak > 0, (name, figures)
        picture = html.split('id="memory-yours"')[1].split("</svg>")[0]
        assert f"peak {peak} bytes</text>" in picture and f"this problem's limit, {limit} bytes" in picture
        assert "as drawn" not in html and "XLA peak" not in html
    assert recorded.peak_bytes == recorded.report["cost"]["peak_bytes"]
    verdict_peak = re.search(r"Peak memory: <strong>(\d+) bytes", pages["verdict"]).group(1)
    assert int(verdict_peak) == recorded.peak_bytes
