"""Messages between the grader and the child that runs submitted code.

A message is an 8-byte big-endian length followed by that many bytes of JSON. Arrays travel as
``{"__array__": [dtype, shape, base64]}``. In a request (the parent's, read by a child: ``encode``
with ``share``), an array object that appears again travels once, and then as ``{"__shared__": k}``,
the k-th array of the message: the explorer's plans all take the same inputs. What a child sends
back may not share (``parse_buffer`` refuses it), so that a small answer cannot stand for many
large arrays. The reader refuses a length above its cap before
reading the body, and decoding checks every array (known dtype, sane shape, exact byte count),
so a hostile child can make a message wrong but cannot make the parent allocate or trust
something it did not ask for. Nothing here unpickles.
"""

from __future__ import annotations

import base64
import json
import os
import struct

import numpy as np

from .specs import numpy_dtype

HEADER = struct.Struct(">Q")
ALLOWED_DTYPES = {
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint32",
    "bool",
    "complex64",
}
MAX_RANK = 8


class ProtocolError(ValueError):
    """The other side sent something that is not a valid message."""


class MessageTooLarge(ProtocolError):
    def __init__(self, size: int, cap: int):
        self.size, self.cap = size, cap
        super().__init__(f"message of {size} bytes exceeds the cap of {cap} bytes")


_PLAIN = frozenset({str, int, float, bool, type(None)})  # written as they are; most values of a message


def _to_jsonable(obj, shared: dict | None = None):
    cls = obj.__class__
    if cls in _PLAIN:
        return obj
    if cls is list or cls is tuple:
        return [v if v.__class__ in _PLAIN else _to_jsonable(v, shared) for v in obj]
    if isinstance(obj, dict):
        return {str(k): _to_jsonable(v, shared) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_to_jsonable(v, shared) for v in obj]
    if isinstance(obj, np.ndarray) or type(obj).__module__.startswith("jax"):
        if shared is not None:
            if id(obj) in shared:
                return {"__shared__": shared[id(obj)]}
            shared[id(obj)] = len(shared)  # the k-th array met, in the order the reader meets them
        arr = np.asarray(obj)
        return {"__array__": [arr.dtype.name, list(arr.shape), base64.b64encode(arr.tobytes()).decode()]}
    if isinstance(obj, np.generic):
        return _to_jsonable(np.asarray(obj))
    return obj


def _decode_array(payload) -> np.ndarray:
    if not (isinstance(payload, list) and len(payload) == 3):
        raise ProtocolError("malformed array")
    dtype, shape, data = payload
    if dtype not in ALLOWED_DTYPES:
        raise ProtocolError(f"array dtype {dtype!r} is not allowed")
    if (
        not isinstance(shape, list)
        or len(shape) > MAX_RANK
        or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 1 << 31 for d in shape)
    ):
        raise ProtocolError("malformed array shape")
    if not isinstance(data, str):
        raise ProtocolError("malformed array data")
    raw = base64.b64decode(data.encode(), validate=True)
    dt = numpy_dtype(dtype)
    if len(raw) != int(np.prod(shape, dtype=np.int64)) * dt.itemsize:
        raise ProtocolError("array data does not match its shape")
    return np.frombuffer(raw, dtype=dt).reshape(shape)


def _arrays_decoder(arrays: list | None):
    """The JSON reader's hook for each object, called in the order the objects end: an array's
    object holds no other, so its arrays are met in the order they are written, the order
    ``__shared__`` counts in."""

    def hook(obj: dict):
        if len(obj) != 1:
            return obj
        if "__array__" in obj:
            array = _decode_array(obj["__array__"])
            if arrays is not None:
                arrays.append(array)
            return array
        if "__shared__" in obj:
            index = obj["__shared__"]
            if arrays is None or not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(arrays):
                raise ProtocolError("malformed shared array")
            return arrays[index]
        return obj

    return hook


def encode(obj, share: bool = False) -> bytes:
    """``share``: a request, in which an array object met again is sent once (see above)."""
    body = json.dumps(_to_jsonable(obj, {} if share else None), allow_nan=True).encode()
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes, shared: bool = False):
    try:
        return json.loads(body, object_hook=_arrays_decoder([] if shared else None))
    except (ValueError, TypeError, RecursionError) as exc:
        if isinstance(exc, ProtocolError):
            raise
        raise ProtocolError(f"undecodable message: {exc}") from None


def _read_exact(fd: int, size: int) -> bytes:
    chunks, remaining = [], size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ProtocolError("the message ended early")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_message(fd: int, cap: int):
    """A request from the parent (its arrays may be shared)."""
    (size,) = HEADER.unpack(_read_exact(fd, HEADER.size))
    if size > cap:
        raise MessageTooLarge(size, cap)
    return decode_body(_read_exact(fd, size), shared=True)


def parse_buffer(data: bytes, cap: int):
    """Decode one message from bytes already read (the parent reads with a deadline)."""
    if len(data) < HEADER.size:
        raise ProtocolError("no message")
    (size,) = HEADER.unpack(data[: HEADER.size])
    if size > cap:
        raise MessageTooLarge(size, cap)
    if len(data) != HEADER.size + size:
        raise ProtocolError("message length does not match its header")
    return decode_body(data[HEADER.size :])


def is_whole_message(data: bytes) -> bool:
    """Whether ``data`` is exactly one message, whole (its length as its header says)."""
    return len(data) >= HEADER.size and len(data) == HEADER.size + HEADER.unpack(bytes(data[: HEADER.size]))[0]


def write_message(fd: int, obj) -> None:
    data = memoryview(encode(obj))
    while data:
        written = os.write(fd, data)
        data = data[written:]
