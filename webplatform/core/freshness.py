"""A cache for figures computed from the submissions table that is never stale.

Counting 100,000 submissions (the problem list's acceptance rates, the rankings) takes a hundred
milliseconds or more on every request; the figures only change when a verdict does. So each
cached value is stored under a *stamp* of the grading state, read in one cheap query of indexed
maxima: the last time a submission was finished, (re)queued or measured again, the last change
of a problem (a new current version, retired, renamed), and the number of users (deleting a
learner deletes their submissions). Any write that changes a verdict or a figure moves the stamp,
so a value computed before it is never served after it: a rejudge or a new verdict shows on the
next request. ``MAX_AGE_S`` bounds how long a change that moves none of these can go unseen: a
submission deleted in the admin (not the latest graded), a learner renamed there.

Each part is declared by the app that owns its table (``watch``, from its ``AppConfig.ready``),
so that this module, which every app reads through, imports none of them.

This assumes the clocks of the processes that write ``finished_at`` move forward together (one
host, or NTP): a worker whose clock lags by more than the time between two verdicts could write
a time below the current maximum.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable, TypeVar

from django.core.signals import request_finished, request_started
from django.db import connection
from django.dispatch import receiver

T = TypeVar("T")
_MISSING = object()
MAX_ENTRIES = 64
MAX_AGE_S = 600
_values: OrderedDict[tuple[str, str], tuple[float, object]] = OrderedDict()  # (name, stamp) -> (when, value)
_computing: dict[tuple[str, str], threading.Lock] = {}
_lock = threading.Lock()  # guards the two dicts; never held while computing
_request = threading.local()  # the grading state read by the request this thread serves
_parts: dict[str, str] = {}  # name -> a scalar SQL subquery; the stamp is all of them, in one query


def watch(name: str, subquery: str) -> None:
    """Makes ``subquery`` (a scalar SELECT: a MAX read from the end of an index, or a small
    COUNT) part of the stamp: any change of its value makes every cached value be computed
    again. Called by the app that owns the table, from its ``AppConfig.ready``."""
    _parts[name] = subquery


def grading_state() -> str:
    """The stamp: changes whenever a verdict, a problem's current version or the set of users
    changes. Each part is a MAX the database reads from the end of an index, or a small COUNT.
    Read once per HTTP request (every figure of a page then comes from the same state); outside
    a request, on every call."""
    if getattr(_request, "active", False):
        if _request.state is None:
            _request.state = _read_state()
        return _request.state
    return _read_state()


def _read_state() -> str:
    if not _parts:
        raise RuntimeError("no part of the grading state is watched: the apps declare theirs in AppConfig.ready")
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"({subquery})" for subquery in _parts.values()))
        return "|".join(str(part) for part in cursor.fetchone())


@receiver(request_started)
def _request_started(**kwargs) -> None:
    _request.active, _request.state = True, None


@receiver(request_finished)
def _request_finished(**kwargs) -> None:
    _request.active, _request.state = False, None


def cached(name: str, compute: Callable[[], T], *, state: str | None = None) -> T:
    """``compute()``, or the value it returned in this process since the last change of the
    grading state (or under ``state``, given). ``name`` must say everything the value depends on
    besides that state (filters, problem, version). Callers must treat the value as read-only:
    it is shared, not copied.

    Kept in this process's memory rather than Django's cache: a cache backend pickles, and
    unpickling a ranking of 2,000 rows on every request cost more than rendering the page. Each
    process computes a value once per change; threads asking for the same value at once wait for
    one computation instead of all running the same heavy query."""
    key = (name, grading_state() if state is None else state)
    found = _lookup(key)
    if found is not _MISSING:
        return found
    with _lock:
        flight = _computing.setdefault(key, threading.Lock())
    with flight:
        found = _lookup(key)  # computed by the thread this one waited for
        if found is not _MISSING:
            return found
        try:
            value = compute()
            _store(key, value)
        finally:
            with _lock:
                _computing.pop(key, None)
    return value


def _store(key, value) -> None:
    with _lock:
        # Values of an older stamp are no longer current: drop them rather than wait for the LRU.
        for stale in [k for k in _values if k[1] != key[1]]:
            del _values[stale]
        _values[key] = (time.monotonic(), value)
        while len(_values) > MAX_ENTRIES:
            _values.popitem(last=False)


def _lookup(key):
    with _lock:
        entry = _values.get(key)
        if entry is None or time.monotonic() - entry[0] > MAX_AGE_S:
            return _MISSING
        _values.move_to_end(key)
        return entry[1]


def clear() -> None:
    """Forgets every value (tests that share a process and reuse database ids)."""
    with _lock:
        _values.clear()
