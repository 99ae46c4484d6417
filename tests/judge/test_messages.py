"""The typed messages: what a child sends is parsed before it is believed, and a stored report
reads back whatever judge wrote it."""

import numpy as np
import pytest

from judge import messages
from judge.evidence import Residual
from judge.report import Report

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
        "treedef": "PyTreeDef(*)",
        "outputs": [{"dtype": "float32", "shape": []}],
        "residuals": [RELU],
        "structure": STRUCTURE,
    }
    return case | changes


def answer(*cases):
    return {"status": "ok", "cases": list(cases), "programs": {"fwd": PROGRAM, "bwd": PROGRAM}}


def test_an_honest_answer_parses_into_typed_cases():
    response = messages.parse_child_response(answer(traced("a"), traced("b")), ["a", "b"])
    first = response.cases[0]
    assert first.residuals == [Residual(**RELU)] and first.structure.checkpoints[0].encloses == {"dot_general": 2}
    assert first.outputs[0].shape == [] and response.programs == (PROGRAM, PROGRAM)


@pytest.mark.parametrize(
    "broken",
    [
        traced("a", residuals=[RELU | {"shape": ["8", 16]}]),  # a shape of text
        traced("a", residuals=[RELU | {"bytes": True}]),  # a size that is not a number
        traced("a", structure=STRUCTURE | {"checkpoints": [CHECKPOINT | {"policy": []}]}),
        traced("a", structure=STRUCTURE | {"checkpoints": [CHECKPOINT | {"policy_origin": "trust me"}]}),
        traced("a", structure=STRUCTURE | {"on_path": [["dot_general", 11, [3], 2]]}),  # no checkpoint 3
        traced("a", residuals=[RELU | {"kept_by": 1}]),  # kept by a checkpoint the program does not have
        traced("a", residuals=[RELU | {"span": [6, 8]}]),  # where in the source: four numbers
        traced("a", residuals=[RELU | {"span": [6, 8, 6, "relu"]}]),
        traced("a", cost={"flops": "many", "peak_bytes": 1, "xla_flops": 1, "xla_temp_bytes": 1, "xla_peak_bytes": 1}),
        {"name": "a", "error": {"kind": "accepted", "message": "trust me"}},  # a kind a child may not report
        {"name": "a", "error": {"kind": "runtime_error", "message": "boom", "line": "six"}},
    ],
)
def test_a_case_that_does_not_fit_its_message_is_malformed(broken):
    with pytest.raises(messages.Malformed):
        messages.parse_child_response(answer(broken, traced("b")), ["a", "b"])


def test_the_cases_are_those_asked_for_in_order_all_of_them_or_up_to_the_first_failure():
    failed = {"name": "a", "error": {"kind": "runtime_error", "message": "boom", "line": 3}}
    assert messages.parse_child_response({"status": "ok", "cases": [failed]}, ["a", "b"]).cases[0].error.line == 3
    for cases in ([], [traced("a")], [traced("b"), traced("a")]):
        with pytest.raises(messages.Malformed):
            messages.parse_child_response(answer(*cases), ["a", "b"])


def test_skipped_is_the_parents_mark_and_never_read_from_a_child():
    claimed = {"name": "a", "error": {"kind": "runtime_error", "message": "later", "line": None, "skipped": True}}
    [case] = messages.parse_child_response({"status": "ok", "cases": [claimed]}, ["a"]).cases
    assert case.error.skipped is False and case.error.verdict == "runtime_error"


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


def test_a_report_round_trips_and_an_old_one_reads_with_what_it_has():
    stored = {
        "problem": "p",
        "verdict": "policy_violation",
        "message": "m",
        "cases": [{"name": "a", "sample": True, "verdict": "policy_violation", "message": "m", "max_error": 0.0}],
        "residuals": [RELU | {"offending": True, "reason": "saved"}],
        "missing_residuals": [RELU | {"line": None, "policy_saved": True, "offending": True, "reason": "kept"}],
        "reference_residuals": [RELU],
        "residual_bytes": 512,
        "reference_residual_bytes": 512,
        "structure": STRUCTURE | {"custom_derivatives": [{"kind": "custom_vjp", "line": 4}]},
        "programs": {},
        "cost": {"flops": 10.0, "peak_bytes": 64, "xla_flops": 8.0, "xla_temp_bytes": 0, "xla_peak_bytes": 96},
        "stdout": "",
        "time_s": 0.5,
        "notes": [],
        "submission": "",
    }
    assert Report.from_dict(stored).to_dict() == stored
    explained = stored | {
        "cause": "Your program has no jax.checkpoint.",
        "advice": "Try: wrap it.",
        "residuals": [
            RELU
            | {
                "span": [6, 8, 6, 27],
                "expr": "jax.nn.relu(x @ w1)",
                "op": "relu",
                "in_terms": True,
                "offending": True,
                "reason": "saved",
            }
        ],
    }
    assert Report.from_dict(explained).to_dict() == explained
    old = Report.from_dict({"verdict": "policy_violation", "message": "m", "residuals": [RELU | {"offending": True}]})
    assert old.missing_residuals == [] and old.cost is None and old.structure is None and old.time_s is None
    assert old.residuals[0].origin() == "output of relu" and old.residuals[0].reason == ""
    older = Report.from_dict(
        {
            "verdict": "policy_violation",
            "message": "m",
            "structure": {
                "checkpoints": [CHECKPOINT | {"feeds_output": False}],
                "custom_vjp": [{"line": 4}],
                "primitives": {},
            },
        }
    )
    assert [(d.kind, d.line) for d in older.structure.custom_derivatives] == [("custom_vjp", 4)]
    assert older.structure.checkpoints[0].on_path is True
