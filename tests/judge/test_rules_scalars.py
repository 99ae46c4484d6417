"""Residual matching ignores one-element constants: a Python float and a concrete jnp scalar are
the same answer, and the four bytes between them are style, not policy."""
from judge.evidence import Residual
from judge.package import ResidualRules, StructureRules
from judge.rules import check_residuals


def _row(kind, what, shape, bytes_, policy_saved=False):
    return Residual(kind=kind, what=what, line=None, dtype="float32", shape=list(shape),
                    type=f"f32{list(shape)}", bytes=bytes_, policy_saved=policy_saved)


PRODUCT = _row("primitive", "dot_general", (4, 6), 96, policy_saved=True)
SCALAR = _row("constant", "constant", (), 4)


def test_a_scalar_constant_on_either_side_is_neither_required_nor_refused():
    rules, structure = ResidualRules(match_reference=True), StructureRules()
    problems, rows, missing = check_residuals([PRODUCT, SCALAR], [PRODUCT], rules, structure)
    assert problems == [] and missing == [] and not any(r.offending for r in rows)
    problems, rows, missing = check_residuals([PRODUCT], [PRODUCT, SCALAR], rules, structure)
    assert problems == [] and missing == []


def test_a_constant_array_is_still_compared():
    table = _row("constant", "constant", (6, 6), 144)
    problems, rows, _ = check_residuals([PRODUCT, table], [PRODUCT], ResidualRules(match_reference=True),
                                        StructureRules())
    assert rows[1].offending and "a constant" in problems[0]
