"""A verdict the judge decides is a ``Verdict`` member (a ``StrEnum``); what the database keeps,
the report stored beside it and what the API answers are its value, the word a learner reads,
never the member's name (a database driver adapting a plain Enum writes POLICY_VIOLATION). Run on
PostgreSQL by the suite's second pass (``python -m tests.postgres_pass``) as on SQLite."""

import pytest
from django.db import connection

from judge.data.report import CaseRow, Report
from judge.data.verdicts import Verdict, worst
from webplatform.submissions import services

from .api import api_for
from .test_pages import submit

pytestmark = pytest.mark.django_db


def test_a_verdict_is_stored_and_served_as_its_word(client, learner, dot_policy):
    submission = submit(learner, dot_policy)
    claimed = services.claim_submission(submission_id=submission.pk, task_id="t")
    decided = worst([Verdict.POLICY_VIOLATION, Verdict.ACCEPTED])
    case = CaseRow("sample-1", True, decided, "relu saved", 0.0)
    report = Report("checkpoint_dot_policy", decided, "saved too much", cases=[case])
    assert services.complete_submission(submission_id=submission.pk, attempt=claimed.attempts, report=report)
    with connection.cursor() as cursor:
        cursor.execute("SELECT verdict FROM submissions_submission WHERE id = %s", [submission.pk])
        assert cursor.fetchone() == ("policy_violation",)
    submission.refresh_from_db()
    assert submission.verdict == "policy_violation" and submission.report["cases"][0]["verdict"] == "policy_violation"
    answer = api_for(client, learner).get(f"/submissions/{submission.pk}").json()
    assert answer["verdict"] == answer["result"]["cases"][0]["verdict"] == "policy_violation"
