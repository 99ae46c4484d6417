"""The grading's status pushed to the page: ``/submissions/<id>/events/`` sends the same payload
as ``/status/`` (place in line, cancel) as server-sent events until the grading is over; under an
ASGI server the verdict arrives the moment it is stored (announced on Redis), not at the stream's
next look."""
import asyncio
import json
import time

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient
from django.urls import reverse

from webplatform.submissions import stream

from .test_pages import finish, submit


def events_of(chunks: bytes) -> list[dict]:
    return [json.loads(line[len("data: "):]) for line in chunks.decode().splitlines() if line.startswith("data: ")]


@pytest.mark.django_db
def test_the_stream_of_a_finished_grading_is_its_status_once(learner_client, learner, dot_policy, broker):
    submission = submit(learner, dot_policy)
    finish(submission, "accepted")
    response = learner_client.get(reverse("submissions:events", args=[submission.pk]))
    assert response["Content-Type"] == "text/event-stream" and response["Cache-Control"] == "no-cache"
    sent = events_of(b"".join(response.streaming_content))
    status = learner_client.get(reverse("submissions:status", args=[submission.pk])).json()
    assert sent == [status] and status["verdict"] == "accepted" and "result_html" in status


@pytest.mark.django_db
def test_only_its_author_follows_a_grading(client, learner, other_learner, dot_policy, broker):
    submission = submit(learner, dot_policy)
    url = reverse("submissions:events", args=[submission.pk])
    assert client.get(url).status_code == 302  # to the login
    client.force_login(other_learner)
    assert client.get(url).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_verdict_is_pushed_when_stored_with_the_status_payload(learner, bank, broker, monkeypatch):
    # Looks far apart: only the announcement can bring the verdict within the second.
    monkeypatch.setattr(stream, "RECHECK_QUEUED_S", 30.0)
    monkeypatch.setattr(stream, "RECHECK_RUNNING_S", 30.0)
    submission = submit(learner, bank["checkpoint_dot_policy"])

    async def follow():
        client = AsyncClient()
        await client.aforce_login(learner)
        response = await client.get(reverse("submissions:events", args=[submission.pk]))
        chunks = aiter(response.streaming_content)
        first = events_of(await anext(chunks))
        status = (await client.get(reverse("submissions:status", args=[submission.pk]))).json()
        assert first == [status] and status["status"] == "queued"
        assert {"place", "position", "cancel_url", "events_url"} <= set(status)
        await sync_to_async(finish)(submission, "accepted")
        started, seen = time.monotonic(), []
        while not (seen and seen[-1]["done"]):
            seen += events_of(await asyncio.wait_for(anext(chunks), 5))
        return seen, time.monotonic() - started

    seen, waited = asyncio.run(follow())
    assert seen[-1]["verdict"] == "accepted" and "result_html" in seen[-1]
    assert waited < 1.5, f"the verdict came after {waited:.2f} s: not pushed"
