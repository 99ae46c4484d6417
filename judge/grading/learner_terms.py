"""A residual in the learner's terms: the expression of their own source that made it.

The child says where each value was made (``Residual.span``: the innermost frame of the
submission's file in the equation's traceback, with its columns); the parent reads that
expression from its own copy of the source (``jax.nn.relu(x @ w1)``) and the operation the
learner called there (``relu``, ``@``, ``**``). The operations JAX's derivative rules add (the
``gt``, ``select_n`` and ``broadcast_in_dim`` of relu's rule, the ``mul`` of ``** 2``'s) carry the
traceback of the call they belong to, so they read as that call: they are folded under it.

A value the required policy saves and the submission does not has no span of the submission
(it is the reference's): it is found among the submission's own operations of the same kind
(``Structure.on_path``, by line), and named by the expression there that does that operation.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..data import syntax
from ..data.evidence import Residual, Structure
from ..source import Source
from ..source.expressions import operation, short

__all__ = ["Source", "by_value", "in_terms", "missing_in_terms", "names_written", "operation"]

# How a value the submission did not save may be written, by the primitive that makes it: used
# only to find, on a line of the submission that runs that primitive, the expression doing it.
_WRITTEN_AS = {
    "dot_general": {"@", "matmul", "dot", "einsum", "tensordot", "inner", "vdot", "outer", "dot_general"},
    "mul": {"*", "multiply"},
    "add": {"+", "add"},
    "sub": {"-", "subtract"},
    "div": {"/", "divide"},
    "integer_pow": {"**", "power", "square"},
    "pow": {"**", "power"},
    "max": {"maximum", "relu"},
    "conv_general_dilated": {"conv", "conv_general_dilated", "convolve"},
}


def _parsed(text: str) -> ast.AST | None:
    # one expression cut from the source at a residual's span, parsed alone: not the submission's text
    try:
        return syntax.parse(text, mode="eval").body
    except (SyntaxError, ValueError):
        return None


def in_terms(residual: Residual, source: Source) -> Residual:
    """A copy of one of the submission's residuals, with its expression and operation."""
    if residual.kind != "primitive":
        return residual
    expr = source.segment(residual.span) if residual.span else ""
    op = operation(_parsed(expr)) if expr else ""
    if not expr and residual.line:
        expr = source.value_on(residual.line)
    if not op and residual.what in source.names:  # a function of theirs (custom_jvp), or jnp.exp...
        op = residual.what
    return replace(residual, expr=short(expr), op=op, in_terms=True)


def by_value(theirs: list, mine: list[Residual], pairing) -> list:
    """The reference's residuals (in the learner's terms, ``missing_in_terms``), each that holds
    the same value as one the learner saves named by the learner's expression that made that value:
    a value is paired by what it is (``saved_values.pair``), not guessed by its operation's kind.
    ``pairing``: None where values were not compared; indices into ``mine`` and ``theirs``."""
    if pairing is None:
        return theirs
    named = list(theirs)
    for i, j in pairing.pairs:
        if i < len(mine) and j < len(named) and named[j].kind == mine[i].kind == "primitive" and mine[i].expr:
            named[j] = replace(named[j], expr=mine[i].expr, op=mine[i].op, in_terms=True)
    return named


def missing_in_terms(rows: list, structure: Structure | None, source: Source) -> list:
    """Copies of the reference's residuals the submission does not save, each named by the
    submission's own expression that computes the same operation (the k-th value of a kind, by the
    k-th line of the submission's code that runs it), or plainly when there is none."""
    lines: dict[str, list[int]] = {}
    for op in structure.on_path if structure is not None else []:
        if op.line is not None and op.line not in lines.setdefault(op.primitive, []):
            lines[op.primitive].append(op.line)
    taken: dict[str, int] = {}
    found = []
    labelled = {label: line for label, line, dropped, _ in reversed(source.labels()) if not dropped}
    for row in rows:
        if row.kind == "named":  # the learner's own line for that label, never the reference's
            found.append(replace(row, line=labelled.get(row.what), span=None))
            continue
        if row.kind != "primitive":
            found.append(row)
            continue
        candidates = sorted(lines.get(row.what, []))
        index = taken.get(row.what, 0)
        taken[row.what] = index + 1
        line = candidates[index] if index < len(candidates) else (candidates[-1] if candidates else None)
        expr, op = _doing(row.what, line, source)
        if not op and row.what in source.names:
            op = row.what
        found.append(replace(row, expr=short(expr), op=op, line=None, span=None, in_terms=True))
    return found


def _doing(primitive: str, line: int | None, source: Source) -> tuple[str, str]:
    """On ``line``, the expression that runs ``primitive`` as the learner wrote it, and its operation."""
    if line is None:
        return "", ""
    written = _WRITTEN_AS.get(primitive, {primitive})
    for node in source.on_line(line):
        op = operation(node)
        if op in written:
            return ast.get_source_segment(source.text, node) or source.value_on(line), op
    return source.value_on(line), ""


def names_written(source: str) -> set[str]:
    """Every identifier of a source: what a learner may be told they wrote."""
    return Source(source).names
