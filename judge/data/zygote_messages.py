"""What the grader and its zygote say to each other about children, typed (``judge.data.records``).

One message per SOCK_SEQPACKET packet, as JSON with its ``kind``. On the control socket the zygote
says ``ready`` (or ``unavailable``) once, and the parent asks ``spawn`` with the child's five
descriptors attached. On each child's status socket the zygote answers ``spawned`` (or
``refused``), later ``exited``; the parent may say ``kill``. Each side reads the kinds it expects
strictly (``receive``) and handles each with one function. Neither side runs submitted code, but
a message that does not read is still an error with a name, never a ``KeyError`` deep inside.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

from ..packages.limits import Limits
from .records import Malformed, Record, choice, read_message

ROLES = ("run", "verify")  # a child for a submission's code, or the verifier (warmed up first)


@dataclass
class LayerState(Record):
    ok: bool
    detail: str  # "active", or why not


@dataclass
class Ready(Record):
    """The zygote has probed this machine's sandbox layers and serves."""

    KIND: ClassVar[str] = "ready"

    pid: int
    layers: dict[str, LayerState]


@dataclass
class Unavailable(Record):
    """The zygote could not start (or could not take a child): why."""

    KIND: ClassVar[str] = "unavailable"

    error: str


@dataclass
class Spawn(Record):
    """Fork one hardened child with these limits (its descriptors ride along with the message)."""

    KIND: ClassVar[str] = "spawn"

    limits: Limits
    role: str = choice(ROLES, default="run")
    ahead: bool = False  # forked ahead of its request: it warms up on the judge's own sample first


@dataclass
class Spawned(Record):
    KIND: ClassVar[str] = "spawned"

    pid: int
    uid: int | None  # the child's own uid, None without the uid layer


@dataclass
class Exited(Record):
    """The child was reaped: its exit status (negative: killed by that signal) and CPU time."""

    KIND: ClassVar[str] = "exited"

    exit: int
    cpu_s: float


@dataclass
class Kill(Record):
    """Kill the child's process group now."""

    KIND: ClassVar[str] = "kill"


def encode(message: Record) -> bytes:
    return json.dumps(message.to_wire()).encode()


def receive(data: bytes, *kinds: type) -> Record:
    """The message ``data`` holds, one of ``kinds``; ``Malformed`` otherwise (an empty packet: the
    other side closed its end)."""
    if not data:
        raise Malformed("the other side closed the connection")
    try:
        found = json.loads(data)
    except (ValueError, RecursionError):
        raise Malformed("not a JSON message") from None
    return read_message(found, {k.KIND: k for k in kinds})
