"""No figure of a hidden case reaches a learner by any way they can read a verdict: the stored report,
the submission's page, the API and the `arena` client's rendering of it.

The submission behaves differently on hidden cases, to carry their sizes out: wrong on the samples
on purpose (so that no sample's figures stand first) and right on the hidden cases but off by a
factor made of their sizes, inside the tolerance; or right on the samples and, on the hidden cases,
an answer made of their sizes. checkpoint_dot_policy's hidden cases are N=64, d=32 and N=2, d=48, so
``1000 * N + d`` writes 64032 and 2048 (scaled by the tolerance's 1e-9, 6.4032e-05 and 2.048e-06).
"""

import json

import pytest
from django.urls import reverse

from arena.result import Result
from tests.judge.test_hidden_cases import SIGNALLER, SIGNALS
from webplatform.submissions import services
from webplatform.submissions.tasks import grade_submission

from .api import api_for

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

HIDDEN_FIGURES = ("64032", "2048", "64.032", "2.048", "6.4032", "6.403")


@pytest.mark.parametrize("signal", SIGNALS)
def test_no_way_of_reading_a_verdict_shows_a_hidden_cases_figures(signal, learner, learner_client, dot_policy, broker):
    samples, hidden = SIGNALS[signal]
    source = SIGNALLER.replace("SAMPLES", samples).replace("HIDDEN", hidden)
    submission = services.create_submission(user=learner, problem=dot_policy, source=source, kind="submit")
    assert grade_submission.apply(args=[submission.pk], task_id="m").get() == "wrong_answer"
    submission.refresh_from_db()
    page = learner_client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    answer = api_for(learner_client, learner).get(f"/submissions/{submission.pk}")
    assert answer.status_code == 200
    rendered = Result(answer.json()).render(width=200)
    hidden_rows = [c for c in answer.json()["result"]["cases"] if not c["sample"]]
    assert [c["name"] for c in hidden_rows] == ["tall", "wide"]
    assert all(c["max_error"] is None for c in hidden_rows)  # a figure the submission modulates
    seen = {
        "the stored report": json.dumps(submission.report),
        "the page": page,
        "the API": answer.content.decode(),
        "the arena client": rendered,
        "the submission's figures": json.dumps([submission.flops, submission.peak_bytes, submission.residual_bytes]),
    }
    for where, text in seen.items():
        leaked = [figure for figure in HIDDEN_FIGURES if figure in text]
        assert not leaked, f"{where} shows {leaked}"
