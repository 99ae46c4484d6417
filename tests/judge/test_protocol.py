import base64
import json
import os

import numpy as np
import pytest

from judge.data import protocol


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


def _read(data: bytes):
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    try:
        return protocol.read_message(r, 1 << 20)
    finally:
        os.close(r)


def test_a_request_carries_an_array_met_twice_once():
    inputs = np.arange(4096, dtype=np.float32)
    cases = [{"args": [inputs, "plan-a"]}, {"args": [inputs, "plan-b"]}, {"args": [inputs.copy(), "plan-c"]}]
    shared, plain = protocol.encode({"cases": cases}, share=True), protocol.encode({"cases": cases})
    assert len(plain) - len(shared) > 4096 * 4  # one copy of the 16 KiB fewer: the third is another array
    back = _read(shared)["cases"]
    assert back[0]["args"][0] is back[1]["args"][0] and back[2]["args"][0] is not back[0]["args"][0]
    for case in back:
        np.testing.assert_array_equal(case["args"][0], inputs)
    assert [c["args"][1] for c in back] == ["plan-a", "plan-b", "plan-c"]


@pytest.mark.parametrize("ref", [0, 1, -1, "0", True])
def test_a_shared_array_must_be_one_met_before(ref):
    """A reference to an array not yet read (or not an index) is malformed, in a request too."""
    message = [{"__shared__": ref}, {"__array__": ["float32", [1], base64.b64encode(b"\0" * 4).decode()]}]
    with pytest.raises(protocol.ProtocolError, match="shared"):
        _read(_message(message))


def test_an_answer_may_not_share_arrays():
    """What a child sends back is parsed without sharing: a few bytes may not stand for many arrays."""
    array = np.zeros(4, np.float32)
    with pytest.raises(protocol.ProtocolError, match="shared"):
        protocol.parse_buffer(protocol.encode([array, array], share=True), 1 << 20)


def test_only_a_whole_message_is_taken_for_a_childs_complete_answer():
    # the runner stops waiting for a child once its answer is whole: a cut or padded one is not
    whole = protocol.encode({"kind": "traced", "cases": []})
    assert protocol.is_whole_message(whole)
    assert not protocol.is_whole_message(b"")
    assert not protocol.is_whole_message(whole[:5])
    assert not protocol.is_whole_message(whole[:-1])
    assert not protocol.is_whole_message(whole + b" ")
