"""The rate limits (per learner, default 6 submissions and 20 sample runs a minute, each counted
apart) and the code size limit: refused in the service with a message that says what to do, over
HTTP with 429, when to try again and the learner's latest attempt."""

import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from webplatform.submissions import services
from webplatform.submissions.models import Submission

from .helpers import correct_source

pytestmark = pytest.mark.django_db


def submit(user, problem, kind="submit", source=None):
    return services.create_submission(user=user, problem=problem, source=source or correct_source(), kind=kind)


def test_the_defaults_are_six_submissions_and_twenty_runs_a_minute(settings):
    assert settings.SUBMISSION_LIMITS["PER_MINUTE"] == 6
    assert settings.SUBMISSION_LIMITS["RUNS_PER_MINUTE"] == 20
    assert settings.SUBMISSION_LIMITS["MAX_SOURCE_BYTES"] == 64 * 1024


def test_the_site_and_the_judges_gate_have_one_size_limit():
    """SUBMISSION_MAX_SOURCE_BYTES sets both: before, the gate kept a fixed 64 KiB of its own."""
    probe = (
        "from django.conf import settings; import django; django.setup(); from judge.in_child import gate; "
        "print(settings.SUBMISSION_LIMITS['MAX_SOURCE_BYTES'], gate.check('x = 1  #' + 'a' * 3000).reason)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SUBMISSION_MAX_SOURCE_BYTES": "2048", "DJANGO_SETTINGS_MODULE": "webplatform.settings"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("2048 Your code is 2.9 KiB: the submission is larger than 2 KiB"), done.stdout


def test_the_seventh_submission_in_a_minute_is_refused_with_when_to_try_again(learner, other_learner, dot_policy):
    made = [submit(learner, dot_policy) for _ in range(6)]
    Submission.objects.filter(pk=made[0].pk).update(created_at=timezone.now() - timedelta(seconds=45))
    with pytest.raises(services.RateLimited) as refused:
        submit(learner, dot_policy)
    message = " ".join(refused.value.messages)
    assert "You have sent 6 submissions in the last minute" in message and "(6 a minute" in message
    # The oldest of the six leaves the window in about 15 s.
    assert 14 <= refused.value.retry_after_s <= 16 and f"Try again in {refused.value.retry_after_s} s." in message
    assert Submission.objects.filter(user=learner).count() == 6
    submit(other_learner, dot_policy)  # the limit is per learner


def test_runs_and_submissions_are_counted_apart(learner, dot_policy):
    """Iterating with "Run samples" never uses up the submissions, and the other way round."""
    for _ in range(6):
        submit(learner, dot_policy)
    for _ in range(20):
        submit(learner, dot_policy, kind="run")  # six submissions do not hold back a run
    with pytest.raises(services.RateLimited) as refused:
        submit(learner, dot_policy, kind="run")
    message = " ".join(refused.value.messages)
    assert message.startswith("You have run the samples 20 times in the last minute, the most allowed (20 a minute).")
    assert "Try again in" in message
    with pytest.raises(services.RateLimited, match="You have sent 6 submissions"):
        submit(learner, dot_policy)


def test_a_slot_frees_when_a_submission_is_a_minute_old(learner, dot_policy):
    made = [submit(learner, dot_policy) for _ in range(6)]
    Submission.objects.filter(pk=made[0].pk).update(created_at=timezone.now() - timedelta(seconds=61))
    submit(learner, dot_policy)
    with pytest.raises(services.RateLimited):
        submit(learner, dot_policy)


def test_the_limit_is_configurable_and_zero_switches_it_off(learner, dot_policy, settings):
    settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "PER_MINUTE": 2}
    submit(learner, dot_policy)
    submit(learner, dot_policy)
    with pytest.raises(services.RateLimited, match="the most allowed \\(2 a minute"):
        submit(learner, dot_policy)
    settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "PER_MINUTE": 0}
    for _ in range(8):
        submit(learner, dot_policy)


def test_over_http_the_limit_answers_429_with_when_and_the_latest_attempt(learner_client, learner, dot_policy):
    made = [submit(learner, dot_policy) for _ in range(6)]
    latest = submit(learner, dot_policy, kind="run")  # the newest attempt is a run: that is the one to show
    url = reverse("submissions:submit", args=["checkpoint_dot_policy"])
    response = learner_client.post(url, {"source": correct_source()}, HTTP_ACCEPT="application/json")
    assert response.status_code == 429 and 55 <= int(response["Retry-After"]) <= 60
    answer = response.json()
    assert answer["error"].startswith("You have sent 6 submissions in the last minute")
    assert answer["retry_after_s"] == int(response["Retry-After"])
    assert (answer["latest_id"], answer["latest_url"]) == (latest.pk, reverse("submissions:detail", args=[latest.pk]))
    assert made[-1].pk != latest.pk
    page = learner_client.post(url, {"source": correct_source()})  # the form without JavaScript
    html = page.content.decode()
    assert page.status_code == 429 and "You have sent 6 submissions in the last minute" in html
    assert f'href="{answer["latest_url"]}" id="latest-submission"' in html and 'class="topbar"' in html


def test_code_over_the_size_limit_is_refused_with_its_size_and_what_to_do(learner, dot_policy, settings):
    limit = settings.SUBMISSION_LIMITS["MAX_SOURCE_BYTES"]
    submit(learner, dot_policy, source="#" * (limit - 1) + "\n")  # exactly at the limit: fine
    with pytest.raises(ValidationError) as refused:
        submit(learner, dot_policy, source="#" * (limit + 2048) + "\n")
    message = " ".join(refused.value.messages)
    assert message.startswith("Your code is 66.0 KiB: the submission is larger than 64 KiB")
    assert "Remove what the entry point does not use" in message
    settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "MAX_SOURCE_BYTES": 1024}
    with pytest.raises(ValidationError, match="larger than 1 KiB"):
        submit(learner, dot_policy, source="x = 1\n" * 200)


def test_code_size_counts_bytes_not_characters(learner, dot_policy, settings):
    settings.SUBMISSION_LIMITS = {**settings.SUBMISSION_LIMITS, "MAX_SOURCE_BYTES": 1024}
    with pytest.raises(ValidationError, match="larger than 1 KiB"):
        submit(learner, dot_policy, source="# " + "é" * 600 + "\n")  # 600 characters, 1203 bytes


def test_over_http_oversized_code_answers_400_with_the_message(learner_client, dot_policy):
    url = reverse("submissions:submit", args=["checkpoint_dot_policy"])
    response = learner_client.post(url, {"source": "#" * 70_000}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and "larger than 64 KiB" in response.json()["error"]
