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

from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from webplatform.celery import app


class BrokerUnavailable(Exception):
    """Redis did not answer."""


@contextmanager
def _channel():
    try:
        with app.connection_for_read() as connection:
            yield connection.default_channel
    except (OperationalError, RedisError, OSError) as exc:
        raise BrokerUnavailable(f"{type(exc).__name__}: {exc}") from exc


def _keys(channel, queue: str) -> list[str]:
    """The Redis lists of ``queue``: one per priority step (kombu's naming)."""
    return [channel._q_for_pri(queue, step) for step in channel.priority_steps]


def waiting_args(task: str, queues: list[str]) -> set:
    """The first argument (an id) of every message of ``task`` waiting in ``queues``. Raises
    ``BrokerUnavailable`` when Redis is away."""
    found = set()
    with _channel() as channel:
        client = channel.client
        for queue in queues:
            for key in _keys(channel, queue):
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
    with _channel() as channel:
        client = channel.client
        return {queue: sum(client.llen(key) for key in _keys(channel, queue)) for queue in queues}


def ping() -> None:
    """Returns when Redis answers; raises ``BrokerUnavailable`` when it does not."""
    with _channel() as channel:
        channel.client.ping()
