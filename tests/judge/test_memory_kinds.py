"""Where each residual is kept (issue 15): on the device, or offloaded to host memory by a policy.
The rules compare it, the report carries it and counts its bytes apart, the tables show it, and a
report stored before the judge read memories still reads."""

from __future__ import annotations

import pytest

from judge.data import messages, policy_names
from judge.data.evidence import Checkpoint, Residual, Structure
from judge.data.report import Report
from judge.grading.rules import Saved, check_residuals
from judge.grading.text import render_report
from judge.packages.package import ResidualRules, StructureRules

OFFLOAD = policy_names.parse('offload_dot_with_no_batch_dims("device", "pinned_host")')
CHECKPOINT = Structure(
    [
        Checkpoint(
            policy=policy_names.to_wire(OFFLOAD),
            policy_text="",
            prevent_cse=True,
            line=9,
            parent=None,
            depth=0,
            in_loop=False,
            encloses={"dot_general": 1},
        )
    ]
)


def product(memory: str, line: int = 6) -> Residual:
    return Residual(
        kind="primitive",
        what="dot_general",
        line=line,
        dtype="float32",
        shape=[8, 16],
        type="f32[8,16]",
        bytes=512,
        policy_saved=True,
        kept_by=0,
        memory=memory,
    )


ARGUMENT = Residual(kind="argument", what="x", line=None, dtype="float32", shape=[8, 4], type="f32[8,4]", bytes=128)


def judged(mine: list[Residual], reference: list[Residual], **rules):
    return check_residuals(
        Saved(mine, CHECKPOINT),
        Saved(reference, CHECKPOINT),
        ResidualRules(match_reference=True, **rules),
        StructureRules(policy=OFFLOAD),
    )


def test_a_value_kept_on_the_device_that_the_policy_offloads_is_one_difference_told_first():
    problems, rows, missing = judged([ARGUMENT, product("device")], [ARGUMENT, product("pinned_host")])
    assert problems == [
        "f32[8,16] output of dot_general at line 6: saved on the device; the "
        "offload_dot_with_no_batch_dims policy offloads it to pinned_host"
    ]
    assert missing == [] and [r.offending for r in rows] == [False, True]


def test_a_value_offloaded_that_the_policy_keeps_on_the_device_is_told_the_other_way():
    problems, _, missing = judged([product("pinned_host")], [product("device")])
    assert problems == [
        "f32[8,16] output of dot_general at line 6: offloaded to pinned_host; the "
        "offload_dot_with_no_batch_dims policy keeps it on the device"
    ]
    assert missing == []


def test_the_same_value_in_the_same_memory_passes():
    # (device budgets leave host bytes out: tests/judge/test_checks_declared.py, on the verifier's count)
    problems, rows, missing = judged([ARGUMENT, product("pinned_host")], [ARGUMENT, product("pinned_host")])
    assert problems == [] and missing == [] and not any(r.offending for r in rows)


def test_an_old_report_without_memories_reads_as_on_the_device_and_a_new_one_round_trips():
    old = {
        "problem": "p",
        "verdict": "accepted",
        "message": "",
        "residual_bytes": 640,
        "residuals": [
            {
                "kind": "primitive",
                "what": "dot_general",
                "line": 6,
                "dtype": "float32",
                "shape": [8, 16],
                "type": "f32[8,16]",
                "bytes": 512,
            }
        ],
    }
    report = Report.from_dict(old)
    assert report.residuals[0].memory == "device" and report.host_residual_bytes == 0
    assert report.residuals[0].to_dict()["memory"] == "device" and report.to_dict()["host_residual_bytes"] == 0
    new = Report(
        problem="p",
        verdict="accepted",
        message="",
        residual_bytes=128,
        host_residual_bytes=512,
        reference_host_residual_bytes=512,
    )
    new.residuals = Report.from_dict({"residuals": [product("pinned_host").to_dict()]}).residuals
    again = Report.from_dict(new.to_dict())
    assert again.residuals[0].memory == "pinned_host" and again.host_residual_bytes == 512


def test_the_table_shows_memories_and_host_bytes_only_when_something_is_offloaded():
    report = Report(
        problem="p",
        verdict="accepted",
        message="ok",
        residual_bytes=128,
        host_residual_bytes=512,
        reference_residual_bytes=128,
        reference_host_residual_bytes=512,
    )
    report.residuals = Report.from_dict({"residuals": [ARGUMENT.to_dict(), product("pinned_host").to_dict()]}).residuals
    text = render_report(report)
    assert "yours: 128 bytes on the device" in text and "offloaded to the host: yours 512 bytes" in text
    assert any(line.split()[-2:] == ["memory", "why"] or " memory " in line for line in text.splitlines())
    assert "pinned_host" in text
    report.residuals, report.host_residual_bytes, report.reference_host_residual_bytes = report.residuals[:1], 0, 0
    assert "memory" not in render_report(report) and "on the device" not in render_report(report)


@pytest.mark.parametrize("memory", ["host", "unpinned_host", 3])
def test_a_child_naming_a_memory_the_judge_does_not_know_is_malformed(memory):
    sent = product("device").to_wire() | {"memory": memory}
    with pytest.raises(messages.Malformed):
        Residual.from_wire(sent)


def test_a_value_the_policy_offloads_and_the_code_recomputes_is_missing_with_its_memory():
    problems, _, missing = judged([ARGUMENT], [ARGUMENT, product("pinned_host")])
    assert problems == [
        "f32[8,16] output of dot_general: the offload_dot_with_no_batch_dims policy offloads this "
        "to pinned_host; your code recomputes it"
    ]
    assert [m.memory for m in missing] == ["pinned_host"]
