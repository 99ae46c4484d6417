"""A label on another value than the one the statement names, told by the values in the learner's code.

"The label sits on another value" left a learner to guess which value was meant, and their table and
the reference's looked the same (both keep a value named 'hidden', of the same type). The reference
solution, the author's code, says what the label belongs on (``checkpoint_name(jnp.tanh(...),
"hidden")``: a tanh); the learner's code says where they put it (``checkpoint_name(x @ w1, "hidden")``:
a matrix product) and where it computes the value the statement names (``hidden = jnp.tanh(pre)`` on
line 8). This module reads both sources with ``ast`` (never runs them), words the two values, and
marks the rows of the label in both residual tables.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from ..data.evidence import ResidualRow
from ..source import Source
from ..source.expressions import operation

_PRODUCTS = {"@", "dot", "matmul", "einsum", "tensordot", "dot_general", "vdot", "inner"}
_OPERATORS = {"*": "product", "+": "sum", "-": "difference", "/": "quotient", "**": "power"}


@dataclass(frozen=True)
class Misplaced:
    """The label, what the learner labelled (its words and line), and the statement's value in the
    learner's code (its words, line and that line as written; line None where their code shows none)."""

    label: str
    theirs: str  # "the matrix product `x @ w1`"
    their_line: int
    meant: str  # "the tanh"
    meant_line: int | None = None
    meant_text: str = ""  # the learner's line that computes it, as written
    meant_expr: str = ""  # the expression itself, as written: `jnp.tanh(pre)`


def kind_of(node: ast.AST | None) -> str:
    """What an expression computes, as a learner says it: "matrix product", "tanh", "sum"."""
    op = operation(node)
    if op in _PRODUCTS:
        return "matrix product"
    if isinstance(node, ast.BinOp):
        return _OPERATORS.get(op, op)
    return op


def _labelled(tree: ast.Module, label: str) -> list[tuple[ast.Call, ast.expr]]:
    """Each ``checkpoint_name(value, label)`` of a module, with its value (a name followed to the
    expression last assigned to it before, in the same function)."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and operation(node) == "checkpoint_name" and node.args):
            continue
        given = node.args[1:2] + [k.value for k in node.keywords if k.arg == "name"]
        if not (given and isinstance(given[0], ast.Constant) and given[0].value == label):
            continue
        value = node.args[0]
        if isinstance(value, ast.Name):
            assigned = [
                a.value
                for a in ast.walk(tree)
                if isinstance(a, ast.Assign)
                and a.lineno < node.lineno
                and any(isinstance(t, ast.Name) and t.id == value.id for t in a.targets)
            ]
            value = assigned[-1] if assigned else value
        found.append((node, value))
    return found


def misplaced(reference: Source | str, learner: Source | str, label: str) -> Misplaced | None:
    """The learner's label and the statement's value told apart, where the reference labels another
    kind of value than the learner does; None where the sources do not show it. ``reference``: the
    problem's reference solution, another text than the learner's (read here on its own)."""
    learner = Source.of(learner)
    ref_tree, tree = Source.of(reference).tree, learner.tree
    if ref_tree is None or tree is None:
        return None
    wanted = [kind_of(v) for _, v in _labelled(ref_tree, label)]
    mine = _labelled(tree, label)
    if not wanted or not wanted[0] or not mine:
        return None
    call, value = mine[0]
    meant = wanted[0]
    if kind_of(value) == meant:
        return None  # the same kind of value: the sources cannot tell which one is meant
    text = ast.get_source_segment(learner.text, value) or ast.unparse(value)
    theirs = f"the {kind_of(value) or 'value'} `{text}`"
    found = Misplaced(label, theirs, call.lineno, f"the {meant}")
    candidates = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.expr) and kind_of(n) == meant and hasattr(n, "lineno")),
        key=lambda n: (n.lineno < call.lineno, abs(n.lineno - call.lineno), n.lineno),  # after the label first
    )
    if candidates:
        node = candidates[0]
        line = learner.lines[node.lineno - 1].split("  #")[0].strip()
        expr = ast.get_source_segment(learner.text, node) or ast.unparse(node)
        found = replace(found, meant_line=node.lineno, meant_text=line, meant_expr=expr)
    return found


def sentence(found: Misplaced) -> str:
    """The cause, without its capital: which value carries the label, and which one the statement names."""
    where = f", which your code computes at line {found.meant_line} (`{found.meant_text}`)" if found.meant_line else ""
    return (
        f"your label '{found.label}' (line {found.their_line}) is on {found.theirs}, but the value the statement "
        f"names '{found.label}' is {found.meant}{where}: the label sits on another value, so the policy keeps "
        f"that one and the backward pass recomputes the one it needs"
    )


def advice(found: Misplaced) -> str:
    if found.meant_line:
        return (
            f'Try: take checkpoint_name(..., "{found.label}") off {found.theirs} (line {found.their_line}) and put it '
            f"on {found.meant} at line {found.meant_line}, as checkpoint_name({found.meant_expr}, "
            f'"{found.label}"), using what it returns in place of that value.'
        )
    return (
        f'Try: take checkpoint_name(..., "{found.label}") off {found.theirs} (line {found.their_line}) and put it '
        f"on {found.meant}, the value the statement names '{found.label}', using what it returns in its place."
    )


def marked(rows: list, found: Misplaced, yours: bool) -> list:
    """The rows of a residual table with the label's row marked, and why, in the learner's terms."""
    meant = f"{found.meant} at line {found.meant_line} of your code" if found.meant_line else found.meant
    reason = (
        f"your label '{found.label}' is on {found.theirs}; the statement names {meant}"
        if yours
        else f"the statement's '{found.label}': {meant}, not {found.theirs}"
    )
    return [
        _as_row(r, reason) if r.kind == "named" and r.what == found.label and not getattr(r, "missing", False) else r
        for r in rows
    ]


def _as_row(residual, reason: str) -> ResidualRow:
    fields = {k: getattr(residual, k) for k in residual.__dataclass_fields__ if k not in ("offending", "reason")}
    return ResidualRow(**fields, offending=True, reason=reason)


def mark_tables(report, reference: Source | str, learner: Source | str, label: str) -> None:
    """The label's row marked in the report's two tables, the learner's and the reference's."""
    found = misplaced(reference, learner, label)
    if found is not None:
        report.residuals = marked(report.residuals, found, yours=True)
        report.reference_residuals = marked(report.reference_residuals, found, yours=False)
