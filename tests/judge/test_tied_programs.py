"""The program the verifier runs is the one the child inspected: its residuals, in order (issue 10)."""

import numpy as np

from judge.data.evidence import Aval, Residual
from judge.data.messages import TracedCase, Verified, VerifiedCase
from judge.data.saved_values import SavedValue, fingerprint
from judge.grading import pipeline
from judge.runners.boundary import ChildResult

SMALL = {"dtype": "float32", "shape": [8, 16], "bytes": 512}
BIG = {"dtype": "float32", "shape": [16, 16], "bytes": 1024}


def residual(aval: dict) -> Residual:
    return Residual(kind="primitive", what="dot_general", line=3, type="f32", **aval)


def fingerprinted(aval: dict) -> SavedValue:
    values = np.arange(aval["bytes"] // 4, dtype=np.float32)
    return SavedValue(aval["dtype"], values.size, aval["bytes"], "device", fingerprint(values), fingerprint(values + 1))


def merged(inspected: list[dict], verified: list[dict]) -> TracedCase:
    case = TracedCase("a", outputs=[Aval("float32", [])], residuals=[residual(a) for a in inspected])
    arrays = [np.ones((), np.float32)]
    answer = Verified(
        [
            VerifiedCase(
                "a",
                [Aval("float32", [], 4)],
                [Aval(**a) for a in verified],
                arrays,
                arrays,
                arrays,
                arrays,
                [fingerprinted(a) for a in verified],
            )
        ]
    )
    checked = ChildResult("ok", answer.to_wire())
    pipeline._merge(pipeline.Outcome(), checked, [case], {"a": case.outputs}, True)
    return case


def test_residuals_the_verifier_finds_in_the_inspected_order_are_confirmed():
    case = merged([SMALL, BIG], [SMALL, BIG])
    assert case.error is None and [a.bytes for a in case.residual_types] == [512, 1024]


def test_the_same_residuals_in_another_order_are_another_program_and_its_report_is_not_believed():
    case = merged([SMALL, BIG], [BIG, SMALL])
    assert case.error is None and case.contradicted
    assert case.residuals == [] and [a.bytes for a in case.residual_types] == [1024, 512]
