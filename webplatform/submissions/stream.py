"""``/submissions/<id>/events/``: a grading's status as server-sent events, from the first look
until it is finished (``event: status``, the same payload as ``/status/``), so that the page
shows the verdict the moment it is stored instead of at its next poll.

Served by an ASGI server (gunicorn's ``asgi`` worker in ``make run`` and compose), the stream is
a coroutine: it sleeps on ``events.listener`` (one Redis subscription per process) and takes a
thread only for the moment it reads the row, so waiting learners hold no thread. A WSGI server
(``runserver``, the tests' live server) gets the same events from a generator that looks every
``WSGI_LOOK_S`` and holds its thread meanwhile: fine for one developer, not for a class.

The stream also says "still here" with the current payload at least every ``HEARTBEAT_S``: the
page falls back to polling when it hears nothing for longer, or when the stream breaks.
"""
from __future__ import annotations

import asyncio
import json
import time

from asgiref.sync import sync_to_async
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import StreamingHttpResponse
from django.views.decorators.http import require_GET

from . import selectors
from .events import listener
from .views import status_payload

RECHECK_QUEUED_S = 2.0  # the place in line moves as the gradings ahead start
RECHECK_RUNNING_S = 5.0  # the announcement is what ends it; this catches one lost
HEARTBEAT_S = 15.0
MAX_STREAM_S = 600.0  # then the browser's EventSource opens a new one by itself
WSGI_LOOK_S = 0.2


def _event(payload: dict) -> bytes:
    return f"event: status\ndata: {json.dumps(payload)}\n\n".encode()


def _look(request, submission_id: int) -> dict:
    return status_payload(request, selectors.get_own_submission(user=request.user, submission_id=submission_id))


def _look_from_pool(request, submission_id: int) -> dict:
    """``_look`` in a thread of the event loop's pool, which no request start or end passes
    through: its database connection is closed here once past its age, as a request would."""
    close_old_connections()
    try:
        return _look(request, submission_id)
    finally:
        close_old_connections()


def _recheck_s(payload: dict) -> float:
    return RECHECK_QUEUED_S if payload["status"] == "queued" else RECHECK_RUNNING_S


async def _pushed(request, submission_id: int, first: dict):
    look = sync_to_async(_look_from_pool, thread_sensitive=False)
    last, since_sent, started = first, time.monotonic(), time.monotonic()
    async with listener.watch(submission_id) as woke:
        yield b"retry: 1000\n" + _event(first)
        while not last["done"] and time.monotonic() - started < MAX_STREAM_S:
            woke.clear()  # before the look: an announcement during it wakes the next wait
            payload = await look(request, submission_id)
            if payload != last or time.monotonic() - since_sent >= HEARTBEAT_S:
                last, since_sent = payload, time.monotonic()
                yield _event(payload)
            if not last["done"]:
                try:
                    await asyncio.wait_for(woke.wait(), _recheck_s(last))
                except asyncio.TimeoutError:
                    pass


def _looked(request, submission_id: int, first: dict):
    last, since_sent, started = first, time.monotonic(), time.monotonic()
    yield b"retry: 1000\n" + _event(first)
    while not last["done"] and time.monotonic() - started < MAX_STREAM_S:
        time.sleep(WSGI_LOOK_S)
        payload = _look(request, submission_id)
        if payload != last or time.monotonic() - since_sent >= HEARTBEAT_S:
            last, since_sent = payload, time.monotonic()
            yield _event(payload)


@login_required
@require_GET
async def events(request, submission_id):
    first = await sync_to_async(_look)(request, submission_id)  # the request's own thread and connection
    pushed = isinstance(request, ASGIRequest)
    body = _pushed(request, submission_id, first) if pushed else _looked(request, submission_id, first)
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front must pass each event on at once
    return response
