"""A grading's status, pushed to the page that waits for it.

Every change a learner waits for (claimed, graded, failed back to the queue, cancelled) is
announced on one Redis pub/sub channel, after its transaction commits, as the submission's id
(the ids of changes announced together in one message, comma-separated).
Each web process listens on that channel with ONE connection (``Listener``) and wakes the
streams waiting for that id: a waiting learner costs an open socket and a few objects in the
event loop, not a thread or a Redis connection.

What a stream sends is read from the database, never from the announcement, which only says
"look again": an announcement lost (Redis away, a change no service announced, the place in line
moving as other gradings start) is caught by the stream's own look every ``RECHECK_S`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time

import redis
import redis.asyncio
from django.db import transaction

from webplatform.celery import app

log = logging.getLogger(__name__)

CHANNEL = "arena:grading-status"
TIMEOUT_S = 2.0
RECONNECT_S = 2.0

_publishers: dict[str, redis.Redis] = {}  # the broker's URL -> a client (a pool, shared by threads)
_publishers_lock = threading.Lock()


def _client() -> redis.Redis:
    """A client of the broker's Redis (the channel lives beside the queues)."""
    url = app.conf.broker_url
    with _publishers_lock:
        if url not in _publishers:
            _publishers[url] = redis.Redis.from_url(url, socket_connect_timeout=TIMEOUT_S, socket_timeout=TIMEOUT_S)
        return _publishers[url]


def announce(submission_id: int) -> None:
    """Wakes the streams waiting for this submission, once the current transaction commits (a
    stream that looks earlier would still read the old row). Never fails nor delays the write:
    the announcement is handed to a thread of its own, because a publish to a Redis that is away
    blocks for its timeouts and retries, and a worker held there between its claim and its first
    heartbeat would have the claim taken for dead and graded a second time (the burst with faults
    caught it). Without Redis the streams find the change on their next look."""
    transaction.on_commit(lambda: _outbox().offer(submission_id))


_OUTBOX_SIZE = 10_000  # announcements waiting for Redis; past it they are dropped (the looks carry them)
_PUBLISH_BATCH = 500  # announcements published as one message (their ids, comma-separated), at most
_outbox_lock = threading.Lock()
_outbox_queue: queue.Queue | None = None


def _outbox() -> _Outbox:
    global _outbox_queue
    with _outbox_lock:
        if _outbox_queue is None or not _outbox_queue.publisher.is_alive():  # a forked child starts its own
            _outbox_queue = _Outbox()
        return _outbox_queue


class _Outbox(queue.Queue):
    def __init__(self):
        super().__init__(_OUTBOX_SIZE)
        self.publisher = threading.Thread(target=self._publish_forever, name="status-announcer", daemon=True)
        self.publisher.start()

    def offer(self, submission_id: int) -> None:
        try:
            self.put_nowait(submission_id)
        except queue.Full:
            log.warning("announcements are not reaching Redis: submission %s not announced", submission_id)

    def _publish_forever(self) -> None:
        while True:
            waiting = self._take_waiting()
            try:
                _client().publish(CHANNEL, ",".join(map(str, waiting)))
            except (redis.RedisError, OSError) as exc:
                named = ", ".join(map(str, waiting[:10])) + (
                    f" and {len(waiting) - 10} more" if len(waiting) > 10 else ""
                )
                log.warning("could not announce submission %s: %s", named, exc)
            finally:
                for _ in waiting:
                    self.task_done()

    def _take_waiting(self) -> list[int]:
        """The next announcement, and those waiting behind it (at most ``_PUBLISH_BATCH``), in
        order: published as one message. A class's verdicts stored together, a message each, took
        0.4 to 0.9 s to reach Redis (2000 of them, a round trip each), and every web process read
        and parsed all 2000 messages while its streams were delivering."""
        waiting = [self.get()]
        while len(waiting) < _PUBLISH_BATCH:
            try:
                waiting.append(self.get_nowait())
            except queue.Empty:
                break
        return waiting


def flush(timeout: float = 10.0) -> bool:
    """Waits, at most ``timeout`` seconds, until every announcement handed over so far is published
    (or given up): for a process that exits right after its writes (a management command, a
    benchmark's script), whose announcements would die with its publishing thread. False if some
    were still waiting."""
    outbox = _outbox_queue
    if outbox is None:
        return True
    deadline = time.monotonic() + timeout
    with outbox.all_tasks_done:
        while outbox.unfinished_tasks:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            outbox.all_tasks_done.wait(left)
    return True


class Listener:
    """One subscription per process (per event loop) to ``CHANNEL``, fanned out to the streams
    watching each id."""

    def __init__(self):
        self.watchers: dict[int, set[asyncio.Event]] = {}
        self.task: asyncio.Task | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.subscribed: asyncio.Event | None = None
        self.queue_moved = asyncio.Event()  # replaced at every announcement: whoever waits on it wakes

    @contextlib.asynccontextmanager
    async def watch(self, submission_id: int):
        """An event set by every announcement of ``submission_id`` while the block runs. Entered
        once the subscription is confirmed (or after ``TIMEOUT_S`` without Redis): a look taken
        inside the block, after clearing the event, misses no change."""
        self._ensure_running()
        try:
            await asyncio.wait_for(self.subscribed.wait(), TIMEOUT_S)
        except asyncio.TimeoutError:
            pass  # Redis is away: the stream's own looks carry it
        woke = asyncio.Event()
        self.watchers.setdefault(submission_id, set()).add(woke)
        try:
            yield woke
        finally:
            watching = self.watchers.get(submission_id)
            if watching is not None:
                watching.discard(woke)
                if not watching:
                    del self.watchers[submission_id]

    async def next_change(self, woke: asyncio.Event, *, queued: bool, until: float) -> bool:
        """Waits for ``woke`` (the grading's own announcement: True), or while ``queued`` for any
        announcement (a grading ahead started or ended: the place in line moved), or until the
        moment ``until`` of the loop's clock (``loop.time()``)."""
        waits = [asyncio.ensure_future(woke.wait())]
        if queued:
            waits.append(asyncio.ensure_future(self.queue_moved.wait()))
        try:
            async with asyncio.timeout_at(until):
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        except TimeoutError:
            pass
        finally:
            for waiting in waits:
                waiting.cancel()
        return woke.is_set()

    def _ensure_running(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.loop is not loop:
            self.loop, self.subscribed, self.queue_moved = loop, asyncio.Event(), asyncio.Event()
            self.task = loop.create_task(self._listen())

    async def _listen(self) -> None:
        while True:
            client = redis.asyncio.Redis.from_url(app.conf.broker_url, socket_connect_timeout=TIMEOUT_S)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    async for message in pubsub.listen():
                        if message["type"] == "subscribe":
                            self.subscribed.set()
                        elif message["type"] == "message":
                            self._wake(message["data"])
            except asyncio.CancelledError:
                raise
            except (redis.RedisError, OSError) as exc:
                log.warning("grading status channel lost (%s); listening again in %.0f s", exc, RECONNECT_S)
            finally:
                self.subscribed.clear()
                await client.aclose()
            await asyncio.sleep(RECONNECT_S)

    def _wake(self, data) -> None:
        """``data``: the ids of one message (``_Outbox``), comma-separated."""
        try:
            submission_ids = [int(part) for part in (data.decode() if isinstance(data, bytes) else data).split(",")]
        except (AttributeError, UnicodeDecodeError, ValueError):
            return
        for submission_id in submission_ids:
            for woke in self.watchers.get(submission_id, ()):
                woke.set()
        moved, self.queue_moved = self.queue_moved, asyncio.Event()
        moved.set()


listener = Listener()
