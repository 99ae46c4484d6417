"""What the broker holds, read straight from Redis (kombu's Redis transport: one list per queue
and priority step, newest message on the left).

The sweep compares it with the database (a queued submission whose message is in no queue was
lost: a broker restart, a publish that failed) and the metrics show the depth of each queue.
Messages a worker has taken but not acknowledged are not "waiting": a worker that died holding
them gives them back only after the visibility timeout (an hour), so the sweep publishes their
submissions again instead of waiting for that."""

from __future__ import annotations

import base64
import json
from contextlib import contextmanager

import redis
from kombu.transport.redis import Channel

from webplatform.celery import app

TIMEOUT_S = 2.0  # a health check or a sweep must not hang on a Redis that is away


class BrokerUnavailable(Exception):
    """Redis did not answer."""


@contextmanager
def _client():
    """A plain Redis client on the broker's URL (kombu's own connection retries for seconds)."""
    client = redis.Redis.from_url(app.conf.broker_url, socket_connect_timeout=TIMEOUT_S, socket_timeout=TIMEOUT_S)
    try:
        yield client
    except (redis.RedisError, OSError) as exc:
        raise BrokerUnavailable(f"{type(exc).__name__}: {exc}") from exc
    finally:
        client.close()


def keys_of(queue: str) -> list[str]:
    """The Redis lists of ``queue``: one per priority step, named as kombu's Redis transport
    names them (the queue itself for step 0, then the queue, a separator and the step)."""
    steps = app.conf.broker_transport_options.get("priority_steps", Channel.priority_steps)
    return [queue if step == 0 else f"{queue}{Channel.sep}{step}" for step in steps]


def waiting_args(task: str, queues: list[str]) -> set:
    """The first argument (an id) of every message of ``task`` waiting in ``queues``. Raises
    ``BrokerUnavailable`` when Redis is away."""
    found = set()
    with _client() as client:
        for queue in queues:
            for key in keys_of(queue):
                for raw in client.lrange(key, 0, -1):
                    message = json.loads(raw)
                    if message.get("headers", {}).get("task") != task:
                        continue
                    args = json.loads(base64.b64decode(message["body"]))[0]
                    if args:
                        found.add(args[0])
    return found


def depths(queues: list[str]) -> dict[str, int]:
    """Messages waiting in each queue (every priority step)."""
    with _client() as client:
        return {queue: sum(client.llen(key) for key in keys_of(queue)) for queue in queues}


def ping() -> None:
    """Returns when Redis answers; raises ``BrokerUnavailable`` when it does not."""
    with _client() as client:
        client.ping()
