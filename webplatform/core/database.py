"""Living with a database that goes away for a while (a PostgreSQL restart, a failover).

A worker that meets a database error in the middle of a task waits for the database and does
the same step again (``patiently``) instead of failing the task: a failed task's message is
acknowledged and gone, and a verdict that could not be stored would have to be graded again.
Every step retried this way is a guarded update or a read, so doing it twice is harmless."""

from __future__ import annotations

import logging
import time
from typing import Callable, TypeVar

from django.db import DatabaseError, InterfaceError, OperationalError, connections

T = TypeVar("T")
logger = logging.getLogger(__name__)
UNAVAILABLE = (OperationalError, InterfaceError)  # the database is away (not: the query is wrong)
FIRST_WAIT_S, LONGEST_WAIT_S = 0.25, 2.0


class DatabaseUnavailable(DatabaseError):
    """The database stayed away for longer than the caller would wait."""


def is_unavailable(exc: BaseException) -> bool:
    """A database that cannot be reached, or dropped the connection (not a wrong query)."""
    return isinstance(exc, UNAVAILABLE)


def drop_broken_connections() -> None:
    """Closes this thread's connections that an error left unusable, so that the next query
    connects anew (Django keeps a connection that failed until it is closed). One inside a
    transaction is left to the block that opened it: it rolls back, and closing under it would
    only make its end fail differently."""
    for connection in connections.all(initialized_only=True):
        if connection.in_atomic_block:
            continue
        try:
            connection.close_if_unusable_or_obsolete()
        except DatabaseError:
            pass


def patiently(step: Callable[[], T], *, what: str, patience_s: float) -> T:
    """``step()``, tried again with a growing pause (up to 2 s) while the database is away, for
    at most ``patience_s``; then ``DatabaseUnavailable``. Other errors go through at once."""
    deadline = time.monotonic() + patience_s
    wait, failures = FIRST_WAIT_S, 0
    while True:
        try:
            result = step()
        except UNAVAILABLE as exc:
            drop_broken_connections()
            failures += 1
            if failures == 1:
                logger.warning("database unavailable while %s (%s); waiting for it", what, exc)
            if time.monotonic() + wait > deadline:
                raise DatabaseUnavailable(f"the database stayed unavailable while {what}: {exc}") from exc
            time.sleep(wait)
            wait = min(wait * 2, LONGEST_WAIT_S)
            continue
        if failures:
            logger.warning("database back after %s failed tries while %s", failures, what)
        return result
