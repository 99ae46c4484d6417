"""The typed messages: what a child sends is parsed before it is believed, and a stored report
reads back whatever judge wrote it."""

import numpy as np
import pytest

from judge.data import messages
from judge.data.evidence import Cost, Residual

PROGRAM = np.frombuffer(b"program", dtype=np.uint8)
RELU = {
    "kind": "primitive",
    "what": "relu",
    "line": 6,
    "dtype": "float32",
    "shape": [8, 16],
    "type": "f32[8,16]",
    "bytes": 512,
}
# The fields a residual has on the wire besides these, as a child sends them for RELU.
RELU_WIRE = RELU | {"policy_saved": False, "stacked": None, "kept_by": None, "memory": "device", "span": None}
CHECKPOINT = {
    "policy": ["dots_with_no_batch_dims_saveable"],
    "prevent_cse": True,
    "line": 11,
    "parent": None,
    "depth": 0,
    "in_loop": False,
    "encloses": {"dot_general": 2},
    "policy_text": "dots_with_no_batch_dims_saveable",
    "on_path": True,
    "policy_origin": "jax",
    "policy_line": None,
}
STRUCTURE = {
    "checkpoints": [CHECKPOINT],
    "custom_derivatives": [],
    "primitives": {"sin": 1},
    "on_path": [["dot_general", 11, [0], 2]],
}


def traced(name, **changes):
    case = {
        "name": name,
        "error": None,
        "treedef": "PyTreeDef(*)",
        "outputs": [{"dtype": "float32", "shape": [], "bytes": None, "memory": "device"}],
        "residuals": [RELU_WIRE],
        "structure": STRUCTURE,
        "programs": None,
        "cost": None,
    }
    return case | changes


def failed(name, **error):
    return traced(name, error={"kind": "runtime_error", "message": "boom", "line": 3} | error)


def answer(*cases):
    return {"kind": "traced", "cases": list(cases), "programs": {"fwd": PROGRAM, "bwd": PROGRAM}}


def test_an_honest_answer_parses_into_typed_cases():
    response = messages.parse_child_response(answer(traced("a"), traced("b")), ["a", "b"])
    first = response.cases[0]
    assert first.residuals == [Residual(**RELU)] and first.structure.checkpoints[0].encloses == {"dot_general": 2}
    assert first.outputs[0].shape == [] and response.programs == (PROGRAM, PROGRAM)


@pytest.mark.parametrize(
    "broken",
    [
        traced("a", residuals=[RELU_WIRE | {"shape": ["8", 16]}]),  # a shape of text
        traced("a", residuals=[RELU_WIRE | {"bytes": True}]),  # a size that is not a number
        traced("a", structure=STRUCTURE | {"checkpoints": [CHECKPOINT | {"policy": []}]}),
        traced("a", structure=STRUCTURE | {"checkpoints": [CHECKPOINT | {"policy_origin": "trust me"}]}),
        traced("a", structure=STRUCTURE | {"on_path": [["dot_general", 11, [3], 2]]}),  # no checkpoint 3
        traced("a", residuals=[RELU_WIRE | {"kept_by": 1}]),  # kept by a checkpoint the program does not have
        traced("a", residuals=[RELU_WIRE | {"span": [6, 8]}]),  # where in the source: four numbers
        traced("a", residuals=[RELU_WIRE | {"span": [6, 8, 6, "relu"]}]),
        traced("a", residuals=[RELU_WIRE | {"expr": "x @ w"}]),  # the learner's terms are the parent's reading
        traced("a", cost=Cost().to_wire() | {"flops": "many"}),
        failed("a", kind="accepted", message="trust me"),  # a kind a child may not report
        failed("a", line="six"),
    ],
)
def test_a_case_that_does_not_fit_its_message_is_malformed(broken):
    with pytest.raises(messages.Malformed):
        messages.parse_child_response(answer(broken, traced("b")), ["a", "b"])


def test_the_cases_are_those_asked_for_in_order_all_of_them_or_up_to_the_first_failure():
    first_failed = {"kind": "traced", "cases": [failed("a")], "programs": None}
    assert messages.parse_child_response(first_failed, ["a", "b"]).cases[0].error.line == 3
    for cases in ([], [traced("a")], [traced("b"), traced("a")]):
        with pytest.raises(messages.Malformed):
            messages.parse_child_response(answer(*cases), ["a", "b"])


def test_skipped_is_the_parents_mark_and_a_child_that_claims_it_is_refused():
    claimed = {"kind": "traced", "cases": [failed("a", skipped=True)], "programs": None}
    with pytest.raises(messages.Malformed, match="unknown field 'skipped'"):
        messages.parse_child_response(claimed, ["a"])
    assert "skipped" not in messages.CaseError("runtime_error", "later", skipped=True).to_wire()


def test_a_request_reads_back_as_it_was_built():
    request = messages.ChildRequest(
        source="def f(x): ...",
        entry="f",
        arg_names=["x", "n"],
        wrt=[0],
        cases=[messages.CaseInput("a", 1, [False, True], [np.ones(3), 2])],
        cost=True,
    )
    assert messages.ChildRequest.from_wire(request.to_wire()) == request


def test_cases_share_a_program_when_their_shapes_and_static_values_are_the_same_as_sent():
    case = lambda name, shape, static: messages.CaseInput(name, 0, [False, True], [np.ones(shape), static])  # noqa: E731
    cases = [case("a", (2, 3), (1, 2)), case("b", (4,), (1, 2)), case("c", (2, 3), [1, 2]), case("d", (2, 3), 3)]
    # a tuple reaches the child as a list: the same static value on either side of the wire
    assert messages.program_indices(cases) == [0, 1, 0, 2]
    assert messages.program_indices([case("e", (2, 3), 3), *cases]) == [0, 1, 2, 1, 0]


def test_a_residual_is_described_once_for_messages_and_tables():
    stacked = Residual(**RELU, stacked=4)
    assert stacked.phrase() == "f32[8,16] output of relu, stacked over 4 scan steps at line 6"
    assert stacked.origin() == "output of relu (x4 scan steps)"
    argument = Residual(**RELU | {"kind": "argument", "what": "w1", "line": None})
    assert (argument.phrase(), argument.origin()) == (
        "f32[8,16] the argument w1 (an input, kept)",
        "argument w1 (an input, kept)",
    )
    written = Residual(**RELU | {"what": "gt", "expr": "jax.nn.relu(x @ w1)", "op": "relu", "in_terms": True})
    assert written.phrase() == "f32[8,16] from `jax.nn.relu(x @ w1)` (relu) at line 6"
    assert written.origin() == "`jax.nn.relu(x @ w1)` (relu)"
    unknown = Residual(**RELU | {"what": "select_n", "line": None, "in_terms": True})
    assert unknown.phrase() == "f32[8,16] an intermediate value JAX computes for your code"
    named = Residual(**RELU | {"kind": "named", "what": "h"})
    assert (named.phrase(), named.origin()) == ("f32[8,16] the value named 'h' at line 6", "named 'h'")
