"""Every record that crosses the child boundary or is stored is declared once (``judge.data.records``):
what is written reads back the same, a child's malformed message is refused with the field it is
about, and a report stored by an older judge still reads."""

import dataclasses
import importlib
import json
from pathlib import Path

import numpy as np
import pytest

from judge.data import messages, protocol, records
from judge.data import zygote_messages as control
from judge.data.evidence import (
    Aval,
    Checkpoint,
    Cost,
    CustomDerivative,
    OnPath,
    Residual,
    ResidualRow,
    Span,
    Step,
    Structure,
    Timeline,
)
from judge.data.records import Malformed, Record
from judge.data.report import CaseRow, Report
from judge.data.saved_values import RANKS, SavedValue
from judge.data.shape_messages import (
    SHAPE_REQUESTS,
    ArrayType,
    DescribeModule,
    ModuleDescribed,
    Parameter,
    TraceShapes,
    VerifyShapes,
)
from judge.in_child import child
from judge.packages.limits import Limits

OLD_REPORT = Path(__file__).with_name("assets") / "report_c24197c.json"  # written by c24197c's Report.to_dict

RELU = Residual("primitive", "relu", 6, "float32", [8, 16], "f32[8,16]", 512, policy_saved=True, kept_by=0)
TIMELINE = Timeline(
    [Step("dot_general", 11, 96, False, False), Step("mul", None, 64, True, True)], [Span(0, 512, 0, 1, 1)], 1, 32
)
CHECKPOINT = Checkpoint(["dots_saveable"], "dots_saveable", True, 11, None, 0, False, {"dot_general": 2}, True)
STRUCTURE = Structure(
    [CHECKPOINT], [CustomDerivative("custom_vjp", 4)], {"sin": 1}, [OnPath("dot_general", 11, (0,), 2)]
)
COST = Cost(flops=10.0, peak_bytes=64, held_peak_bytes=48, xla_flops=8.0, xla_temp_bytes=0, xla_peak_bytes=96)
ARRAY = np.arange(6, dtype=np.float32).reshape(2, 3)
PROGRAM = np.frombuffer(b"program", dtype=np.uint8)
FINGERPRINT = np.linspace(0.0, 1.0, RANKS + 2)
SAVED = SavedValue("float32", 128, 512, "device", FINGERPRINT, FINGERPRINT + 1)
TRACED = messages.TracedCase(
    "sample-1",
    None,
    "PyTreeDef(*)",
    [Aval("float32", [])],
    [RELU],
    STRUCTURE,
    {"forward": "a", "backward": "b"},
    Cost(timeline=TIMELINE),
)
VERIFIED = messages.VerifiedCase(
    "sample-1",
    [Aval("float32", [], 4)],
    [Aval("float32", [8, 16], 512)],
    [ARRAY],
    [ARRAY],
    [ARRAY],
    [ARRAY],
    [SAVED],
    COST,
)

# One of every record, as it travels (parent-only fields at their defaults: they never do).
SAMPLES = [
    Aval("float32", [8, 16], 512, "pinned_host"),
    RELU,
    ResidualRow(**vars(RELU), offending=True, reason="saved where the policy recomputes"),
    CHECKPOINT,
    CustomDerivative("custom_jvp", None),
    OnPath("sin", None, (), 1),
    STRUCTURE,
    Step("sin", 3, 8, True, True),
    Span(1, 8, -1, None, None),
    TIMELINE,
    COST,
    CaseRow("sample-1", True, "accepted", "", 0.0),
    Report("p", "accepted", "", [CaseRow("a", False, "accepted", "", None)], structure=STRUCTURE, cost=COST),
    SAVED,
    messages.CaseInput("a", 1, [False, True], [ARRAY, 2], sample=True),
    messages.ChildRequest(
        "def f(x): ...", "f", ["x", "n"], [0], [messages.CaseInput("a", 1, [False, True], [ARRAY, 2])]
    ),
    messages.VerifyCase("a", [ARRAY], [ARRAY], [ARRAY], [ARRAY]),
    messages.VerifyRequest(
        PROGRAM, PROGRAM, [0], [messages.VerifyCase("a", [ARRAY], [ARRAY], [ARRAY], [ARRAY])], cost=True
    ),
    messages.CaseError("runtime_error", "boom", 3),
    TRACED,
    messages.Programs(PROGRAM, PROGRAM),
    messages.Traced([TRACED], messages.Programs(PROGRAM, PROGRAM)),
    messages.Failed(messages.CaseError("memory_limit", "the submission ran out of memory")),
    messages.SandboxFailed("seccomp: not supported"),
    VERIFIED,
    messages.Verified([VERIFIED]),
    messages.Mismatched([messages.VerifiedCase("sample-1", [Aval("float32", [3], 12)])]),
    control.LayerState(False, "not supported by this kernel"),
    control.Ready(4127, {"seccomp": control.LayerState(True, "active")}),
    control.Unavailable("too many sandboxed children at once"),
    control.Spawn(Limits(wall_s=2.5, memory_mb=512), "verify"),
    control.Spawned(4128, None),
    control.Exited(-9, 0.25),
    control.Kill(),
    ArrayType("float32", [8, 16]),
    TraceShapes(
        messages.ChildRequest(
            "def f(x): ...", "f", ["x", "n"], [0], [messages.CaseInput("a", 1, [False, True], [None, 2])]
        ),
        [[ArrayType("float32", [2, 3])]],
    ),
    VerifyShapes(
        messages.VerifyRequest(PROGRAM, PROGRAM, [0], [messages.VerifyCase("a", [], [], [], [])], numbers=False),
        [[ArrayType("float32", [2, 3])]],
        [[ArrayType("float32", [2, 3])]],
        compile_s=1.5,
    ),
    DescribeModule("model = make()", "model"),
    Parameter(".layers[0].weight", ArrayType("float32", [4, 8])),
    ModuleDescribed("equinox", [Parameter(".w", ArrayType("bfloat16", [2]))], ["x"]),
]


def _all_records() -> set[type]:
    for module in ("evidence", "report", "messages", "saved_values", "zygote_messages", "shape_messages"):
        importlib.import_module(f"judge.data.{module}")
    found, todo = set(), [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub)
            todo.append(sub)
    return found


def _bytes(record) -> bytes:
    """What goes on the wire, to compare records holding arrays."""
    return protocol.encode(records.to_wire(record))


def test_every_record_has_a_sample_here():
    assert _all_records() == {type(s) for s in SAMPLES}


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: type(r).__name__)
def test_a_record_reads_back_from_the_wire_as_it_was_written(record):
    received = protocol.parse_buffer(_bytes(record), 1 << 20)  # through JSON and back, as a child sends it
    back = records.from_wire(type(record), received)
    assert type(back) is type(record) and _bytes(back) == _bytes(record)


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: type(r).__name__)
def test_a_record_reads_back_from_storage_as_it_was_written(record):
    stored = protocol.parse_buffer(protocol.encode(records.to_stored(record)), 1 << 20)
    assert _bytes(records.from_stored(type(record), stored)) == _bytes(record)
    assert _bytes(records.from_stored(type(record), stored, strict=True)) == _bytes(record)


def test_what_the_parent_adds_is_stored_but_never_on_the_wire():
    worded = dataclasses.replace(RELU, expr="jax.nn.relu(x @ w1)", op="relu", in_terms=True, span=[6, 8, 6, 27])
    assert {"expr", "op", "in_terms"}.isdisjoint(worded.to_wire()) and worded.to_wire()["span"] == [6, 8, 6, 27]
    assert Residual.from_dict(worded.to_dict()) == worded
    merged = dataclasses.replace(
        TRACED, residual_types=[Aval("float32", [8, 16], 512)], saved=[SAVED], contradicted=True
    )
    assert "saved" not in merged.to_wire() and "contradicted" not in merged.to_dict()
    back = messages.TracedCase.from_dict(protocol.parse_buffer(protocol.encode(merged.to_dict()), 1 << 20), strict=True)
    assert back.residual_types == merged.residual_types and back.saved[0].bytes == 512 and not back.contradicted


def test_kept_by_survives_a_stored_report():
    """It was written and then dropped on reading (the residual's hand-written pair had drifted)."""
    report = Report("p", "policy_violation", "m", residuals=[ResidualRow(**vars(RELU), offending=True)])
    assert Report.from_dict(json.loads(json.dumps(report.to_dict()))).residuals[0].kept_by == 0
    assert Report.from_dict(json.loads(OLD_REPORT.read_text())).residuals[0].kept_by == 0


# ---------------------------------------------------------------------------- a hostile child


def _answer(**case_changes) -> dict:
    return messages.Traced([TRACED], messages.Programs(PROGRAM, PROGRAM)).to_wire() | (
        {"cases": [TRACED.to_wire() | case_changes]} if case_changes else {}
    )


def _refused(message) -> str:
    with pytest.raises(Malformed) as refused:
        messages.parse_child_response(message, ["sample-1"])
    return str(refused.value)


def test_an_honest_answer_reads():
    response = messages.parse_child_response(protocol.parse_buffer(protocol.encode(_answer()), 1 << 20), ["sample-1"])
    assert response.cases[0].residuals == [RELU] and response.programs[0].tobytes() == b"program"


def test_a_forged_field_is_refused_by_name():
    assert _refused(_answer(trusted=True)) == "Traced.cases[0]: unknown field 'trusted'"
    relu = RELU.to_wire() | {"offending": False}  # a field of the report's rows, not of the child's residuals
    assert _refused(_answer(residuals=[relu])) == "Traced.cases[0].residuals[0]: unknown field 'offending'"


def test_a_field_of_the_wrong_type_is_refused_by_name():
    assert _refused(_answer(residuals=[RELU.to_wire() | {"bytes": "512"}])) == (
        "Traced.cases[0].residuals[0].bytes: expected an integer"
    )
    assert _refused(_answer(residuals=[RELU.to_wire() | {"line": True}])) == (
        "Traced.cases[0].residuals[0].line: expected an integer"
    )
    assert "memory: 'gpu' is not one of" in _refused(
        _answer(outputs=[{"dtype": "f", "shape": [], "bytes": None, "memory": "gpu"}])
    )
    assert _refused(_answer() | {"cases": "all of them"}) == "Traced.cases: expected a list"


def test_a_value_deep_in_lists_and_objects_is_refused_by_its_whole_path():
    structure = STRUCTURE.to_wire() | {"primitives": {"sin": 1, "cos": "2"}}
    assert _refused(_answer(structure=structure)) == "Traced.cases[0].structure.primitives['cos']: expected an integer"
    second = TRACED.to_wire() | {"name": "sample-2", "outputs": [{"dtype": "f", "shape": [1, "2"], "bytes": None}]}
    answer = _answer() | {"cases": [TRACED.to_wire(), second]}
    assert _refused(answer) == "Traced.cases[1].outputs[0].shape[1]: expected an integer"


def test_a_missing_field_is_refused_by_name():
    relu = RELU.to_wire()
    del relu["kept_by"]
    assert _refused(_answer(residuals=[relu])) == "Traced.cases[0].residuals[0].kept_by: missing"
    answer = _answer()
    del answer["programs"]
    assert _refused(answer) == "Traced.programs: missing"


def test_an_unknown_kind_or_no_object_is_refused():
    assert _refused(_answer() | {"kind": "accepted"}) == "unknown message kind 'accepted'"
    assert _refused([1, 2]) == "a message must be an object"
    assert "unknown message kind" in _refused(messages.Verified([VERIFIED]).to_wire())  # the verifier's, from the child


def test_deep_nesting_is_refused_not_a_crash():
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_buffer(protocol.HEADER.pack(len(deep)) + deep, 1 << 20)
    nested: list = ["save_from_both_policies"]
    for _ in range(400):  # deep enough to exhaust a reader that recursed on it, shallow enough for JSON
        nested = ["save_from_both_policies", [nested, nested[:1]]]
    forged = CHECKPOINT.to_wire() | {"policy": nested}
    structure = STRUCTURE.to_wire() | {"checkpoints": [forged]}
    assert "not a policy's canonical form" in _refused(_answer(structure=structure))
    assert "expected text" in _refused(_answer(treedef=[[[[["PyTreeDef"]]]]]))


def test_the_verifiers_figures_and_sizes_are_checked():
    unsized = dataclasses.replace(VERIFIED, residuals=[Aval("float32", [8, 16])])
    child_cost = dataclasses.replace(VERIFIED, cost=Cost(flops=1.0, peak_bytes=1, held_peak_bytes=1, timeline=TIMELINE))
    for case in (unsized, child_cost, dataclasses.replace(VERIFIED, saved=[])):
        with pytest.raises(Malformed):
            messages.parse_verify_response(messages.Verified([case]).to_wire(), ["sample-1"])
    assert messages.parse_verify_response(messages.Verified([VERIFIED]).to_wire(), ["sample-1"]).checked


def test_every_request_has_one_handler():
    assert set(child.HANDLERS) == set(messages.REQUESTS) | set(SHAPE_REQUESTS)


def test_the_zygotes_messages_are_read_by_kind():
    assert control.receive(control.encode(control.Exited(0, 0.5)), control.Exited) == control.Exited(0, 0.5)
    for data, problem in [
        (b"", "closed"),
        (b"[" * 100_000, "not a JSON message"),
        (control.encode(control.Kill()), "unknown message kind 'kill'"),  # not what this side expects
        (b'{"kind": "exited", "exit": "0", "cpu_s": 0.5}', "Exited.exit: expected an integer"),
    ]:
        with pytest.raises(Malformed, match=problem):
            control.receive(data, control.Exited)


# ---------------------------------------------------------------------------- stored reports, however old


def test_a_report_stored_by_the_judge_before_records_reads_whole():
    stored = json.loads(OLD_REPORT.read_text())
    report = Report.from_dict(stored)
    first, offloaded = report.residuals
    assert (first.expr, first.in_terms, first.span, first.offending) == (
        "jax.nn.relu(x @ w1)",
        True,
        [6, 8, 6, 27],
        True,
    )
    assert offloaded.memory == "pinned_host" and offloaded.kept_by is None and not offloaded.policy_saved
    assert report.reference_residuals[0].stacked == 4 and report.cases[1].skipped
    assert report.structure.on_path == [OnPath("dot_general", 11, (0,), 2)]
    assert report.cost.timeline.steps[1] == Step("mul", None, 64, True, True) and report.cost.revision == 3
    assert report.reference_timeline.start_bytes == 32 and (report.cause, report.host_residual_bytes) == (
        "Your checkpoint saves relu.",
        512,
    )
    assert Report.from_dict(report.to_dict()) == report


def test_an_older_report_reads_with_what_it_has():
    relu = {k: v for k, v in RELU.to_wire().items() if k in ("kind", "what", "line", "dtype", "shape", "type", "bytes")}
    old = Report.from_dict({"verdict": "policy_violation", "message": "m", "residuals": [relu | {"offending": True}]})
    assert old.missing_residuals == [] and old.cost is None and old.structure is None and old.time_s is None
    assert old.residuals[0].origin() == "output of relu" and old.residuals[0].reason == ""
    older = Report.from_dict(
        {
            "verdict": "policy_violation",
            "message": "m",
            "structure": {
                "checkpoints": [CHECKPOINT.to_dict() | {"feeds_output": False}],  # a field since dropped
                "custom_vjp": [{"line": 4}],  # before custom JVPs were told apart
                "primitives": {},
            },
            "cost": {},  # an absent record was written as {}
            "programs": None,
            "time_s": "slow",  # not a number: read as a report that did not say
            "residual_bytes": "3584",  # the same: not known, never 0 bytes (which would rank first)
        }
    )
    assert [(d.kind, d.line) for d in older.structure.custom_derivatives] == [("custom_vjp", 4)]
    assert older.structure.checkpoints[0].on_path is True and older.cost is None
    assert older.programs == {} and older.time_s is None and older.residual_bytes is None
    assert Report.from_dict({}).residual_bytes == 0  # left out: as before records
