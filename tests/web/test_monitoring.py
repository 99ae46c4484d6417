"""/metrics for Prometheus and /staff/grading/ for people: the same numbers, staff only."""

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from judge.data.report import Report
from webplatform.submissions import services
from webplatform.submissions.models import Submission

from .helpers import correct_source

pytestmark = pytest.mark.django_db


def scrape(client, **headers) -> dict:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content[:300]
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_metrics_are_for_staff_and_for_a_scraper_with_the_token(client, learner_client, staff, settings, broker):
    assert client.get("/metrics").status_code == 403
    assert learner_client.get("/metrics").status_code == 403
    settings.METRICS_TOKEN = "s3cret-token"
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert scrape(client, HTTP_AUTHORIZATION="Bearer s3cret-token")[("arena_up", (("part", "broker"),))] == 1
    client.force_login(staff)
    assert scrape(client)[("arena_up", (("part", "database"),))] == 1


def test_the_numbers_follow_the_queue_the_gradings_the_workers_and_the_sweep(
    client, staff, learner, other_learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        first = services.create_submission(user=learner, problem=dot_policy, source=correct_source(), kind="submit")
        services.create_submission(user=learner, problem=dot_policy, source=correct_source(), kind="submit")
        services.create_submission(user=other_learner, problem=dot_policy, source=correct_source(), kind="run")
    services.claim_submission(submission_id=first.pk, task_id="m", worker="w1@host#7")
    Submission.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(seconds=3))
    with django_capture_on_commit_callbacks(execute=True):  # publishes her second
        services.complete_submission(
            submission_id=first.pk,
            attempt=1,
            report=Report.from_dict({"verdict": "accepted", "message": "", "time_s": 0.4}),
        )
    services.record_worker(
        name="w1@host",
        queues="cpu",
        started_at=timezone.now(),
        layers={"seccomp": {"ok": True, "detail": ""}, "uid": {"ok": False, "detail": "not root"}},
    )
    services.sweep()
    got = scrape(client)
    # The broker: the learner's first is done, her second published after it, and the "Run samples".
    assert got[("arena_queue_depth", (("queue", "cpu"),))] == 3  # messages of all three were published
    assert got[("arena_queue_depth", (("queue", "cpu.background"),))] == 0
    assert got[("arena_gradings", (("lane", "submit"), ("state", "published")))] == 1
    assert got[("arena_gradings", (("lane", "quick"), ("state", "published")))] == 1
    labels = (("problem", "checkpoint_dot_policy"), ("verdict", "accepted"))
    assert got[("arena_submit_to_verdict_seconds_bucket", (("le", "2.0"),) + labels)] == 0
    assert got[("arena_submit_to_verdict_seconds_bucket", (("le", "5.0"),) + labels)] == 1
    assert got[("arena_grading_seconds_bucket", (("le", "0.5"),) + labels)] == 1
    assert got[("arena_grading_seconds_sum", labels)] == pytest.approx(0.4)
    assert got[("arena_sandbox_layer_active", (("layer", "seccomp"), ("worker", "w1@host")))] == 1
    assert got[("arena_sandbox_layer_active", (("layer", "uid"), ("worker", "w1@host")))] == 0
    assert got[("arena_sweep_runs_total", ())] == 1 and got[("arena_sweep_republished_total", ())] == 0
    page = client.get("/staff/grading/").content.decode()
    assert "uid (missing)" in page and "checkpoint_dot_policy" in page and 'id="sweep"' in page


def test_with_the_broker_away_the_metrics_say_so(client, staff, broker):
    client.force_login(staff)
    broker.server.stop()
    try:
        got = scrape(client)
    finally:
        broker.server.start()
    assert got[("arena_up", (("part", "broker"),))] == 0 and got[("arena_up", (("part", "database"),))] == 1
