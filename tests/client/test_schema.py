"""The client reads the site's answers into typed classes: nested classes built, a field it does
not know left out, a field an older site did not send read as its default, and one it cannot do
without named."""

import pytest

from arena.schema import Checkpoint, Memory, ReferenceResidual, Report, Submission, read

ANSWER = {
    "id": 3,
    "problem": "checkpoint_dot_policy",
    "problem_title": "A dot policy",
    "version": 2,
    "kind": "submit",
    "status": "done",
    "done": True,
    "verdict": "accepted",
    "message": "",
    "created_at": "2026-12-01T10:00:00Z",
    "finished_at": "2026-12-01T10:00:02Z",
    "url": "/submissions/3/",
    "a_field_from_a_newer_site": 1,
    "result": {
        "verdict": "accepted",
        "message": "",
        "reference_residuals": [{"type": "f32[8]", "bytes": 32, "saved_value": "argument x", "memory": "pinned_host"}],
        "required_residuals": [{"type": "f32[8]", "bytes": 32, "saved_value": "argument x", "memory": "pinned_host"}],
        "memory": {"residual_bytes": 0, "host_residual_bytes": 32, "flops": 100, "peak_bytes": 64},
        "checkpoints": [{"line": 4, "policy_text": "offload_dot_with_no_batch_dims", "depth": 0, "policy": "x"}],
    },
}


def test_an_answer_reads_into_typed_classes():
    submission = read(Submission, ANSWER)
    assert isinstance(submission.result, Report) and submission.result.verdict == "accepted"
    assert submission.result.reference_residuals == [ReferenceResidual("f32[8]", 32, "argument x", "pinned_host")]
    assert submission.result.memory == Memory(host_residual_bytes=32, flops=100, peak_bytes=64)
    assert submission.result.checkpoints == [Checkpoint(4, "offload_dot_with_no_batch_dims", 0)]
    assert submission.result.cases == [] and submission.source == ""  # not sent: their defaults
    assert read(Submission, {**ANSWER, "result": None}).result is None


def test_an_answer_without_a_field_the_client_needs_is_refused_by_name():
    with pytest.raises(ValueError, match="Submission has no 'url'"):
        read(Submission, {k: v for k, v in ANSWER.items() if k != "url"})


def test_reading_a_row_as_a_dict_still_works_and_says_it_is_deprecated():
    row = read(Submission, ANSWER).result.reference_residuals[0]
    with pytest.deprecated_call():
        assert row["bytes"] == 32
