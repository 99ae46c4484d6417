"""A grading's status as server-sent events, from the first look until it is finished (``event:
status``, the same payload as ``/status/``, place in line and cancel included), so that the page
shows the verdict the moment it is stored instead of at its next poll.

Under the ASGI server (gunicorn's ``asgi`` worker: in ``make run``, behind its front, for this path
only, see devstack/front.py; in compose, for the whole site), ``webplatform.asgi`` hands
``/submissions/<id>/events/`` to ``serve`` here before Django's handler: a plain ASGI coroutine,
because Django's handler keeps a thread for each request until its response ends (its
``ThreadSensitiveContext``), which for a stream is the whole wait. ``serve`` sleeps on
``events.listener`` (one Redis subscription per process) and borrows a thread of the loop's pool
only for the moment it reads the row: a waiting learner holds an open socket, not a thread.

Under a WSGI server (``runserver``, the tests' live server) the Django view ``events`` sends the
same events from a generator that looks every ``WSGI_LOOK_S`` and holds its thread meanwhile:
fine for one developer, not for a class.

The stream sends the current status at least every ``HEARTBEAT_S``: the page falls back to
polling when it hears nothing for longer, or when the stream breaks.

One account holds at most ``EVENT_STREAMS["PER_USER"]`` streams at once, counted across the web
processes (``services.take_stream_slot``); past it a stream is refused with 429 and Retry-After
(the page then polls), and each stream gives its slot back when it ends, the client gone included.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import math
import re
import time
from importlib import import_module

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.handlers.asgi import ASGIRequest
from django.db import DatabaseError, close_old_connections
from django.http import Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET

from webplatform.core.http import wants_json

from . import selectors, services
from .events import listener
from .views import status_payload

log = logging.getLogger(__name__)

PATH = re.compile(r"/submissions/(\d+)/events/")
QUEUE_LOOK_S = 2.0  # a queued grading's place is looked at again at most this often, when the queue moves
HEARTBEAT_S = 15.0  # and every stream looks (and sends) at least this often, whatever was announced
MAX_STREAM_S = 600.0  # then the browser's EventSource opens a new one by itself
# The timed looks of a process's streams (heartbeats, a queue's move) fall on whole seconds of one
# clock, so that a class's streams look together: one query for hundreds (``_Looks``), not one each.
# Spread over their own times, 2000 waiting learners' heartbeats cost 57 % of a core (`make bench`).
LOOK_GRID_S = 1.0
WSGI_LOOK_S = 0.2
DATABASE_RETRY_S = 0.5
BATCH_MAX = 500  # gradings in one look of many (SQLite takes far more variables in a query)
HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]  # a proxy in front must pass each event on at once


def _event(payload: dict) -> bytes:
    return f"event: status\ndata: {json.dumps(payload)}\n\n".encode()


def _look(request, submission_id: int) -> dict:
    return status_payload(request, selectors.get_own_submission(user=request.user, submission_id=submission_id))


def _look_many(looks: list[tuple]) -> list:
    """For each (request, id) of ``looks``, its payload, or Http404 for a grading not its learner's:
    one query for all of them."""
    found = selectors.submissions_by_id(ids={submission_id for _, submission_id in looks})
    owned = []  # each look's submission, or None where it is not its learner's
    for request, submission_id in looks:
        submission = found.get(submission_id)
        owned.append(submission if submission is not None and submission.user_id == request.user.pk else None)
    places = selectors.queue_places({s.pk: s for s in owned if s is not None}.values())  # once each
    return [
        status_payload(request, submission, places) if submission is not None else Http404("no such submission")
        for submission, (request, _) in zip(owned, looks)
    ]


def _in_pool(function):
    """``function`` in a thread of the event loop's pool, which no request start or end passes
    through: its database connection is closed after it once past its age, as a request would."""

    def run(*args):
        close_old_connections()
        try:
            return function(*args)
        finally:
            close_old_connections()

    return sync_to_async(run, thread_sensitive=False)


def _open(scope, submission_id: int):
    """The request as Django sees it (session, user), the first look and the stream's slot;
    PermissionDenied for a visitor, Http404 for a grading not theirs, TooManyStreams past the
    user's limit."""
    request = ASGIRequest(scope, io.BytesIO())
    engine = import_module(settings.SESSION_ENGINE)
    request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    request.user = get_user(request)
    if not request.user.is_authenticated:
        raise PermissionDenied
    first = _look(request, submission_id)
    return request, first, services.take_stream_slot(user_id=request.user.pk)


def _too_many_headers(refused: services.TooManyStreams) -> list[tuple[bytes, bytes]]:
    return [(b"retry-after", str(refused.retry_after).encode())]


class _Looks:
    """The looks of one process's streams, taken together: one query for every stream waiting for
    a look, then each payload. When a class's verdicts land at once, 2000 streams each compiling and
    running a query of its own (most of what a look costs) kept the last learners waiting seconds. A
    look asked while a batch runs joins the next one; a lone look is a batch of one."""

    def __init__(self):
        self.loop, self.waiting, self.running = None, [], False

    async def look(self, request, submission_id: int) -> dict:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:  # a new event loop (the tests run several): the old one's looks are gone
            self.loop, self.waiting, self.running = loop, [], False
        answer = loop.create_future()
        self.waiting.append((request, submission_id, answer))
        if not self.running:
            self.running = True
            loop.create_task(self._take())
        return await answer

    async def _take(self) -> None:
        try:
            while self.waiting:
                batch, self.waiting = self.waiting[:BATCH_MAX], self.waiting[BATCH_MAX:]
                try:
                    answers = await _in_pool(_look_many)([(request, pk) for request, pk, _ in batch])
                except Exception as exc:  # the database is away (or worse): each stream meets it, none hangs
                    answers = [exc] * len(batch)
                for (_, _, answer), result in zip(batch, answers):
                    if answer.done():  # its stream ended meanwhile
                        continue
                    if isinstance(result, Exception):
                        answer.set_exception(result)
                    else:
                        answer.set_result(result)
        finally:
            self.running = False


looks = _Looks()


def _on_grid(moment: float, *, later: bool) -> float:
    """``moment`` (of the event loop's clock) moved to a whole ``LOOK_GRID_S``: ``later`` for a look
    that must wait at least until it, earlier for a heartbeat that must come at most then."""
    steps = moment / LOOK_GRID_S
    return (math.ceil(steps) if later else math.floor(steps)) * LOOK_GRID_S


async def _pushed(request, submission_id: int, first: dict):
    """The events after ``first``: a look when the grading is announced; while it is queued, also
    when the queue moves (at most every ``QUEUE_LOOK_S``); and every ``HEARTBEAT_S`` regardless.
    Each with whether it is the last (the grading is over).

    The timed waits end at moments of the loop's own clock, armed as such (``timeout_at``), not as
    a delay from whenever the wait began: streams due at the same whole second wake in the same turn
    of the loop and take one look. Armed as delays, a stream held up a few microseconds between
    reading the clock and arming its wait (another thread holding the interpreter) woke a turn
    later, after the batch had gone, and took a look of its own."""
    clock = asyncio.get_running_loop().time
    last, looked, sent, started = first, clock(), clock(), clock()
    failed = False
    async with listener.watch(submission_id) as woke:
        while not last["done"] and clock() - started < MAX_STREAM_S:
            beat_at = _on_grid(sent + HEARTBEAT_S, later=False)
            if not failed:
                own = await listener.next_change(woke, queued=last["status"] == "queued", until=beat_at)
                if not own and clock() < beat_at:  # the queue moved: look at the place once
                    # QUEUE_LOOK_S is past, or at once when its own change comes meanwhile (a verdict
                    # that landed within QUEUE_LOOK_S of a look waited out the rest: up to 2 s)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout_at(_on_grid(looked + QUEUE_LOOK_S, later=True)):
                            await woke.wait()
            woke.clear()  # before the look: an announcement during it wakes the next wait
            try:
                payload, looked, failed = await looks.look(request, submission_id), clock(), False
            except DatabaseError as exc:  # a database that is busy or away: look again shortly
                log.warning("event stream of submission %s: %s", submission_id, exc)
                failed = True
                await asyncio.sleep(DATABASE_RETRY_S)
                continue
            if payload != last or looked >= beat_at:
                last, sent = payload, looked
                yield _event(payload), payload["done"]


async def _plain(send, status: int, text: str, scope=None, headers=()) -> None:
    """A refusal: plain text, or ``{"error": ...}`` to a client that asked for JSON (as the site's
    other refusals: core.errors)."""
    accept = dict(scope.get("headers", ())).get(b"accept", b"") if scope else b""
    if b"application/json" in accept:
        body, kind = json.dumps({"error": text}).encode(), b"application/json"
    else:
        body, kind = text.encode(), b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", kind), *headers]})
    await send({"type": "http.response.body", "body": body})


async def serve(scope, receive, send, submission_id: int) -> None:
    """The ASGI endpoint (see the module's docstring)."""
    if scope["method"] != "GET":
        return await _plain(send, 405, "This address takes GET only.", scope, [(b"allow", b"GET")])
    try:
        request, first, slot = await _in_pool(_open)(scope, submission_id)
    except PermissionDenied:
        return await _plain(send, 403, "Log in to follow a grading.", scope)
    except Http404:
        return await _plain(send, 404, "No such submission.", scope)
    except services.TooManyStreams as refused:
        return await _plain(send, 429, str(refused), scope, _too_many_headers(refused))
    except DatabaseError as exc:
        log.warning("event stream of submission %s: %s", submission_id, exc)
        return await _plain(
            send, 503, "The database is unavailable; the page polls meanwhile.", scope, [(b"retry-after", b"10")]
        )

    async def stream():
        # The last event ends the response in the same message, which the server sends in one write
        # with the end of the chunked body: a class's verdicts were two writes per stream, and the
        # writes to the front were the largest part of the stream server's time while it delivered.
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        opening = b"retry: 1000\n" + _event(first)
        await send({"type": "http.response.body", "body": opening, "more_body": not first["done"]})
        if first["done"]:
            return
        ended, renewed = False, time.monotonic()
        async for chunk, last in _pushed(request, submission_id, first):
            await send({"type": "http.response.body", "body": chunk, "more_body": not last})
            ended = last
            if not last and time.monotonic() - renewed >= services.RENEW_S:  # alive: the slot holds on
                renewed = time.monotonic()
                await sync_to_async(services.renew_stream_slot, thread_sensitive=False)(slot)
        if not ended:  # the stream's time is up (MAX_STREAM_S): the browser opens a new one
            await send({"type": "http.response.body", "body": b""})

    async def left():
        while (await receive())["type"] != "http.disconnect":
            pass

    tasks = [asyncio.ensure_future(stream()), asyncio.ensure_future(left())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if not task.cancelled() and task.exception() and not isinstance(task.exception(), OSError):
                raise task.exception()
    finally:
        for task in tasks:
            task.cancel()
        # in a pool thread (a Redis that is away blocks for its timeout), whatever ended the stream
        await asyncio.shield(sync_to_async(services.release_stream_slot, thread_sensitive=False)(slot))


def _looked(request, submission_id: int, first: dict):
    last, sent, started = first, time.monotonic(), time.monotonic()
    yield b"retry: 1000\n" + _event(first)
    while not last["done"] and time.monotonic() - started < MAX_STREAM_S:
        time.sleep(WSGI_LOOK_S)
        payload = _look(request, submission_id)
        if payload != last or time.monotonic() - sent >= HEARTBEAT_S:
            last, sent = payload, time.monotonic()
            yield _event(payload)


def too_many_streams(request, refused: services.TooManyStreams) -> HttpResponse:
    """429 with Retry-After: plain text, or ``{"error": ...}`` to a client that asked for JSON."""
    if wants_json(request):
        response = JsonResponse({"error": str(refused)}, status=429)
    else:
        response = HttpResponse(str(refused), status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(refused.retry_after)
    return response


class _Holding:
    """The events of ``_looked``, holding the stream's slot until the server closes the response
    (the stream over, or the client gone), even when nothing of it was sent."""

    def __init__(self, events, slot):
        self.events, self.slot = events, slot

    def __iter__(self):
        renewed = time.monotonic()
        for chunk in self.events:
            yield chunk
            if time.monotonic() - renewed >= services.RENEW_S:  # alive: the slot holds on
                renewed = time.monotonic()
                services.renew_stream_slot(self.slot)

    def close(self):
        try:
            self.events.close()
        finally:
            services.release_stream_slot(self.slot)


@login_required
@require_GET
def events(request, submission_id):
    """The same stream under a WSGI server (see the module's docstring)."""
    first = _look(request, submission_id)
    try:
        slot = services.take_stream_slot(user_id=request.user.pk)
    except services.TooManyStreams as refused:
        return too_many_streams(request, refused)
    response = StreamingHttpResponse(
        _Holding(_looked(request, submission_id, first), slot), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
