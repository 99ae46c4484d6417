"""Residual matching leaves constants out: a Python float, a concrete jnp scalar or a NumPy array
the program closes over is part of the program, and no checkpoint policy decides whether it is
kept (issue 10). They are still listed, as what they are."""

from judge.data.evidence import Residual, Structure
from judge.grading.rules import Saved, check_residuals
from judge.packages.package import ResidualRules, StructureRules


def _row(kind, what, shape, bytes_, kept_by=None):
    return Residual(
        kind=kind,
        what=what,
        line=None,
        dtype="float32",
        shape=list(shape),
        type=f"f32{list(shape)}",
        bytes=bytes_,
        policy_saved=kept_by is not None,
        kept_by=kept_by,
    )


PRODUCT = _row("primitive", "dot_general", (4, 6), 96)
SCALAR = _row("constant", "constant", (), 4)
TABLE = _row("constant", "constant", (6, 6), 144)


def saved(*residuals):
    return Saved(list(residuals), Structure())


def test_a_constant_on_either_side_is_neither_required_nor_refused():
    rules, structure = ResidualRules(match_reference=True, allowed_kinds=("primitive",)), StructureRules()
    for constant in (SCALAR, TABLE):
        problems, rows, missing = check_residuals(saved(PRODUCT, constant), saved(PRODUCT), rules, structure)
        assert problems == [] and missing == [] and not any(r.offending for r in rows) and len(rows) == 2
        problems, rows, missing = check_residuals(saved(PRODUCT), saved(PRODUCT, constant), rules, structure)
        assert problems == [] and missing == []
