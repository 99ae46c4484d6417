"""A learner's open event streams, counted across every web process: at most
``EVENT_STREAMS["PER_USER"]`` at once, so that one account cannot hold hundreds of sockets (and the
stream server's memory) open.

The count lives in the Redis the streams already listen on (beside the broker's queues): a sorted
set per user, ``arena:streams:<user id>``, of one member per open stream scored by when it lapses.
A stream takes a slot before its first event and gives it back when it ends, however it ends (the
grading over, its time up, the client gone). A slot holds for ``HOLD_S`` and the stream renews it
as it sends its events (at least one every heartbeat), so a process that dies holding slots frees
them within ``HOLD_S``: a stream server that crashed and came back serves the same learners again
within seconds, not when their old streams would have ended. Without Redis the streams are not counted (they keep working: the limit guards
against abuse, the page must not break for it)."""

from __future__ import annotations

import logging
import math
import time
import uuid
from dataclasses import dataclass

import redis
from django.conf import settings

from .. import events

log = logging.getLogger(__name__)

KEY = "arena:streams:{user_id}"
# How long a slot holds unless its stream renews it: two of the streams' heartbeats (15 s) and a margin.
HOLD_S = 40.0
RENEW_S = 10.0  # a stream renews its slot at most this often

# KEYS[1]: the user's set; ARGV: now, the limit, when the new slot lapses, its member. Drops the
# lapsed slots, then takes one if fewer than the limit are held: {1, 0}, or {0, the soonest lapse}.
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, first[2]}
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIREAT', KEYS[1], math.ceil(tonumber(ARGV[3])))
return {1, '0'}
"""


@dataclass(frozen=True)
class StreamSlot:
    """One open stream's place in its user's count (``member`` None: not counted, Redis was away)."""

    user_id: int
    member: str | None


class TooManyStreams(Exception):
    """The user holds ``limit`` streams already; ``retry_after`` seconds is when to try again."""

    def __init__(self, limit: int, retry_after: int):
        super().__init__(
            f"You have {limit} live status streams open already (the most one account may hold): "
            "close a tab that follows a grading, or let this page check the status by itself."
        )
        self.limit, self.retry_after = limit, retry_after


def _limit() -> int:
    return int(settings.EVENT_STREAMS["PER_USER"])


def _retry_after() -> int:
    return int(settings.EVENT_STREAMS["RETRY_AFTER_S"])


def take_stream_slot(*, user_id: int, hold_s: float = HOLD_S) -> StreamSlot:
    """A slot for a new stream of ``user_id``, held ``hold_s`` unless renewed (``renew_stream_slot``);
    TooManyStreams when the user holds the limit already (0: no limit)."""
    limit = _limit()
    if limit <= 0:
        return StreamSlot(user_id, None)
    now, member = time.time(), uuid.uuid4().hex
    try:
        taken, first_lapse = events._client().eval(
            _TAKE, 1, KEY.format(user_id=user_id), now, limit, now + hold_s, member
        )
    except redis.RedisError as exc:
        log.warning("event streams of user %s not counted: %s", user_id, exc)
        return StreamSlot(user_id, None)
    if not int(taken):
        # a slot frees when a stream ends, which nobody can foresee; never later than the soonest lapse
        lapse = max(1, math.ceil(float(first_lapse) - now))
        raise TooManyStreams(limit, min(_retry_after(), lapse))
    return StreamSlot(user_id, member)


def renew_stream_slot(slot: StreamSlot, hold_s: float = HOLD_S) -> None:
    """The stream is alive: its slot holds ``hold_s`` more (only a slot still held is renewed)."""
    if slot.member is None:
        return
    lapse = time.time() + hold_s
    try:
        key = KEY.format(user_id=slot.user_id)
        # one round trip; the set lives as long as its latest renewal holds (no slot lapses later)
        events._client().pipeline(transaction=False).zadd(key, {slot.member: lapse}, xx=True).expireat(
            key, math.ceil(lapse)
        ).execute()
    except redis.RedisError as exc:  # it lapses by itself, and the next renewal may come through
        log.warning("event stream slot of user %s not renewed: %s", slot.user_id, exc)


def release_stream_slot(slot: StreamSlot) -> None:
    """Gives the slot back (at most once counts: a second release does nothing)."""
    if slot.member is None:
        return
    try:
        events._client().zrem(KEY.format(user_id=slot.user_id), slot.member)
    except redis.RedisError as exc:  # it lapses by itself
        log.warning("event stream slot of user %s not given back: %s", slot.user_id, exc)
