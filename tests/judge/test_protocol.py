import base64
import json
import os

import numpy as np
import pytest

from judge import protocol


def test_round_trip_keeps_arrays_exact():
    payload = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": [1, "x", None], "c": np.float32(2.5)}
    data = protocol.encode(payload)
    back = protocol.parse_buffer(data, 1 << 20)
    np.testing.assert_array_equal(back["a"], payload["a"])
    assert back["a"].dtype == np.float32 and back["b"] == [1, "x", None] and float(back["c"]) == 2.5


def test_message_over_the_cap_is_refused_before_reading_it():
    r, w = os.pipe()
    os.write(w, protocol.HEADER.pack(1 << 40))
    os.close(w)
    with pytest.raises(protocol.MessageTooLarge):
        protocol.read_message(r, 1 << 20)
    os.close(r)


def _message(obj) -> bytes:
    body = json.dumps(obj).encode()
    return protocol.HEADER.pack(len(body)) + body


@pytest.mark.parametrize(
    "array",
    [
        ["object", [1], base64.b64encode(b"x").decode()],  # pickled objects are not a dtype here
        ["float32", [2], base64.b64encode(b"\0" * 4).decode()],  # bytes do not match the shape
        ["float32", [-1], ""],
        ["float32", [1] * 9, base64.b64encode(b"\0" * 4).decode()],  # rank above the limit
        ["float32", [1], "not base64!"],
    ],
)
def test_malformed_arrays_are_refused(array):
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_buffer(_message({"__array__": array}), 1 << 20)


def test_truncated_and_garbage_messages_are_refused():
    data = protocol.encode({"a": 1})
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_buffer(data[:-1], 1 << 20)
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_buffer(protocol.HEADER.pack(3) + b"{{{", 1 << 20)
