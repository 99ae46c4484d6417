"""A worker's claim on a piece of work, kept alive while it works on it.

A thread beside the task calls ``beat`` every few seconds; ``beat`` refreshes the claim in the
database and says whether the claim is still this worker's. A claim that stops beating belongs
to a worker that is gone (killed, out of memory, its machine lost): the sweep releases it within
seconds instead of waiting for the longest grading there could be. When ``beat`` answers False
(someone cancelled the work, or the sweep gave it to another worker) the thread calls ``on_lost``
once, to stop the work, and ends. A database that is away only makes beats fail; the thread goes
on beating."""

from __future__ import annotations

import logging
import threading
from typing import Callable

from django.db import connection

from .database import drop_broken_connections, is_unavailable

logger = logging.getLogger(__name__)


class Heartbeat:
    """``with Heartbeat(beat, every_s=2, on_lost=stop): do_the_work()``"""

    def __init__(self, beat: Callable[[], bool], *, every_s: float, on_lost: Callable[[], None]):
        self.beat, self.every_s, self.on_lost = beat, every_s, on_lost
        self.stopping = threading.Event()
        self.lost = False
        self.thread = threading.Thread(target=self._run, name="claim-heartbeat", daemon=True)

    def _run(self) -> None:
        try:
            while not self.stopping.wait(self.every_s):
                try:
                    owned = self.beat()
                except Exception as exc:  # noqa: BLE001 - a beat that fails is retried, never fatal
                    if not is_unavailable(exc):
                        logger.exception("heartbeat failed")
                    drop_broken_connections()
                    continue
                if not owned:
                    self.lost = True
                    self.on_lost()
                    return
        finally:
            connection.close()  # this thread's own connection

    def __enter__(self) -> "Heartbeat":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.thread.join(self.every_s + 5)
