"""A graded submission's report as the API answers it: made of the judge's records
(``judge.data.report.Report``, its cases, residual rows, checkpoints and cost), under their
names, with what the verdict page adds (the residuals' wording, the memory picture)."""

from __future__ import annotations

from judge.data.evidence import Checkpoint as CheckpointRecord
from judge.data.evidence import Cost
from judge.data.evidence import ResidualRow as ResidualRecord
from judge.data.report import CaseRow, Report
from judge.data.verdicts import Verdict

from .from_records import fields, own, schema

SAVED_VALUE = own(str, "an argument, a named value, or the output of an operation")
MEMORY = {
    "memory": "where it is kept for the backward pass: device, or pinned_host when an offloading policy moved it "
    "to host memory"
}

Case = schema(
    "Case",
    fields(CaseRow, "name", "sample", "verdict", "max_error", "message", "skipped", types={"verdict": Verdict}),
)

ResidualRow = schema(
    "ResidualRow",
    fields(
        ResidualRecord,
        "type",
        "bytes",
        "line",
        "offending",
        "reason",
        "memory",
        described={
            "type": "dtype and shape, such as f32[8,16]",
            "line": "the line of the submitted code that produced it",
            "offending": "differs from what the required policy saves",
            "reason": "why it is marked",
            **MEMORY,
        },
    ),
    saved_value=SAVED_VALUE,
    missing=own(bool, "saved by the required policy, not by the submission"),
)

ReferenceResidual = schema(
    "ReferenceResidual",
    fields(ResidualRecord, "type", "bytes", "memory", described=MEMORY),
    saved_value=SAVED_VALUE,
    doc="A value the required policy saves (the reference's line numbers are not shown).",
)

Checkpoint = schema(
    "Checkpoint",
    fields(
        CheckpointRecord,
        "line",
        "policy_text",
        "depth",
        described={"policy_text": "its policy as written", "depth": "0 for a checkpoint nested in none"},
    ),
    renamed={"policy": "policy_text"},
)

Memory = schema(
    "Memory",
    fields(
        Report,
        "residual_bytes",
        "reference_residual_bytes",
        "host_residual_bytes",
        "reference_host_residual_bytes",
        types={"residual_bytes": int},
        described={
            "residual_bytes": "saved for the backward pass by the submission (first case), on the device: what "
            "rankings count",
            "reference_residual_bytes": "what the required policy saves on the device",
            "host_residual_bytes": "offloaded to host memory by the submission (first case)",
            "reference_host_residual_bytes": "what the required policy offloads to host memory",
        },
    ),
    # The API counts FLOPs whole (the judge's are floats of whole numbers).
    fields(
        Cost,
        "flops",
        "peak_bytes",
        "xla_flops",
        "xla_peak_bytes",
        types={"flops": int | None, "xla_flops": int | None},
        described={
            "flops": "one gradient step, every recomputation counted (submissions only)",
            "peak_bytes": "largest total of live values in a gradient step",
            "xla_flops": "XLA's estimate; a loop body counted once",
        },
    ),
    bytes_over=own(int, "residual_bytes minus reference_residual_bytes"),
    recomputed_operations=own(
        int | None,
        "operations the backward pass recomputes (made from saved values, none from the cotangent); null where "
        "the step was not measured",
    ),
    description=own(str, "the memory over one gradient step, in words"),
    picture_svg=own(
        str | None, "the memory over one gradient step as the site draws it (SVG, with a title and a description)"
    ),
    renamed={
        "required_residual_bytes": "reference_residual_bytes",
        "required_host_residual_bytes": "reference_host_residual_bytes",
    },
)

Programs = schema("Programs", forward=own(str), backward=own(str))

Result = schema(
    "Result",
    fields(
        Report,
        "verdict",
        "message",
        "cause",
        "advice",
        "cases",
        "residuals",
        "reference_residuals",
        "stdout",
        "time_s",
        "notes",
        types={
            "verdict": Verdict | None,
            "cases": list[Case],
            "residuals": list[ResidualRow],
            "reference_residuals": list[ReferenceResidual],
        },
        described={
            "verdict": "null for an inspection that ran: it has no verdict",
            "message": "the cause, in terms of the submitted code",
            "cause": "a policy_violation's structural cause, in one sentence (empty for other verdicts)",
            "advice": "one thing to try, where the judge has one",
            "residuals": "what the submission saves, and rows the policy saves that it does not (missing)",
            "reference_residuals": "what the required policy saves",
            "time_s": "the grading's wall time",
        },
    ),
    description=own(str, "what the verdict means"),
    memory=own(Memory),
    checkpoints=own(list[Checkpoint]),
    programs=own(Programs | None),
    renamed={"required_residuals": "reference_residuals"},
)
