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
import re
from dataclasses import replace

from ..data import syntax
from ..data.evidence import Residual, Structure

# An expression longer than this is cut (a message names it, a table cell shows it).
LONGEST = 60
_SYMBOLS = {
    ast.MatMult: "@",
    ast.Pow: "**",
    ast.Mult: "*",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.USub: "-",
    ast.UAdd: "+",
    ast.Not: "not",
    ast.Invert: "~",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.Gt: ">",
    ast.Lt: "<",
    ast.GtE: ">=",
    ast.LtE: "<=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}
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


class Source:
    """The submission's source, read once: its lines and its syntax tree."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines()
        try:
            self.tree = syntax.parse(text)
        except (SyntaxError, ValueError):
            self.tree = None
        self.names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))

    def segment(self, span: list[int]) -> str:
        """The text of [line, column, end line, end column] (columns count UTF-8 bytes, as Python's do)."""
        start, column, end, end_column = span
        if not 1 <= start <= end <= len(self.lines):
            return ""
        chunk = [line.encode() for line in self.lines[start - 1 : end]]
        if start == end:
            chunk = [chunk[0][column:end_column]]
        else:
            chunk[0], chunk[-1] = chunk[0][column:], chunk[-1][:end_column]
        return " ".join(part.decode(errors="replace").strip() for part in chunk).strip()

    def line(self, number: int | None) -> str:
        return self.lines[number - 1].strip() if number and 1 <= number <= len(self.lines) else ""

    def value_on(self, number: int | None) -> str:
        """What the statement on a line computes: ``y @ w2`` of ``return y @ w2`` or of ``z = y @ w2``
        (a learner reads the value, not the statement); the line itself where there is no such value."""
        if self.tree is not None and number:
            for node in ast.walk(self.tree):
                if (
                    isinstance(node, (ast.Return, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr))
                    and node.lineno == number
                    and node.value is not None
                ):
                    segment = ast.get_source_segment(self.text, node.value)
                    if segment:
                        return " ".join(part.strip() for part in segment.splitlines())
        return self.line(number)

    def loop_around(self, number: int | None) -> ast.For | ast.While | None:
        """The innermost Python ``for`` or ``while`` statement whose body holds the line."""
        if self.tree is None or not number:
            return None
        loops = [
            n
            for n in ast.walk(self.tree)
            if isinstance(n, (ast.For, ast.While)) and n.body[0].lineno <= number <= (n.end_lineno or n.lineno)
        ]
        return max(loops, key=lambda n: n.lineno, default=None)

    def numpy_calls(self, name: str) -> list[int]:
        """The lines that call NumPy's ``name`` (``np.arange``, with numpy imported under any alias)."""
        if self.tree is None:
            return []
        aliases = {
            a.asname or a.name
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Import)
            for a in n.names
            if a.name == "numpy"
        }
        direct = {
            a.asname or a.name
            for n in ast.walk(self.tree)
            if isinstance(n, ast.ImportFrom) and n.module == "numpy"
            for a in n.names
            if a.name == name
        }
        return sorted(
            {
                n.lineno
                for n in ast.walk(self.tree)
                if isinstance(n, ast.Call)
                and (
                    (
                        isinstance(n.func, ast.Attribute)
                        and n.func.attr == name
                        and isinstance(n.func.value, ast.Name)
                        and n.func.value.id in aliases
                    )
                    or (isinstance(n.func, ast.Name) and n.func.id in direct)
                )
            }
        )

    def scan_steps(self) -> list[tuple[str, int]]:
        """(step, line) of each scan: ``jax.lax.scan(step, ...)`` gives ("step", its line); a lambda
        written in place, ("lambda ...", its line) as written."""
        if self.tree is None:
            return []
        return sorted(
            (
                n.args[0].id if isinstance(n.args[0], ast.Name) else ast.get_source_segment(self.text, n.args[0]),
                n.lineno,
            )
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Call)
            and n.args
            and (getattr(n.func, "attr", None) == "scan" or getattr(n.func, "id", None) == "scan")
            and isinstance(n.args[0], (ast.Name, ast.Lambda))
        )

    def unchanged_carry(self) -> list[tuple[str, int]]:
        """(name, line) of what a scan's step carries through unchanged: its carry unpacked as
        ``h, W = carry`` and returned as ``(..., W)`` in the same place. A checkpointed scan saves
        its carry at every step it keeps, so such a value is saved once per kept step."""
        if self.tree is None:
            return []
        steps = {
            n.args[0].id
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Call)
            and n.args
            and (getattr(n.func, "attr", None) == "scan" or getattr(n.func, "id", None) == "scan")
            and isinstance(n.args[0], ast.Name)
        }
        found = []
        for fn in ast.walk(self.tree):
            if not (isinstance(fn, ast.FunctionDef) and fn.name in steps and fn.args.args):
                continue
            carry = fn.args.args[0].arg
            unpacked = [
                [getattr(e, "id", None) for e in n.targets[0].elts]
                for n in ast.walk(fn)
                if isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Tuple)
                and isinstance(n.value, ast.Name)
                and n.value.id == carry
            ]
            for ret in (n for n in ast.walk(fn) if isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple)):
                new = ret.value.elts[0] if ret.value.elts else None
                for names in unpacked:
                    if isinstance(new, ast.Tuple) and len(new.elts) == len(names):
                        found += [
                            (name, ret.lineno)
                            for name, e in zip(names, new.elts)
                            if name and isinstance(e, ast.Name) and e.id == name
                        ]
        return found

    def fixed_blocks(self) -> tuple[int, int] | None:
        """(count, line) of a ``.reshape(N, -1)`` with a number N written in the source: the steps
        cut into a fixed count of blocks, whatever their number."""
        if self.tree is None:
            return None
        for node in ast.walk(self.tree):
            if (
                isinstance(node, ast.Call)
                and operation(node) == "reshape"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and type(node.args[0].value) is int
            ):
                return node.args[0].value, node.lineno
        return None

    def segment_length(self) -> tuple[int, int] | None:
        """(length, line) of a ``.reshape(-1, K, ...)`` with a number K written in the source: the
        steps cut into segments of a fixed length K."""
        if self.tree is None:
            return None
        for node in ast.walk(self.tree):
            if (
                isinstance(node, ast.Call)
                and operation(node) == "reshape"
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.UnaryOp)
                and isinstance(node.args[0].op, ast.USub)
                and isinstance(node.args[1], ast.Constant)
                and type(node.args[1].value) is int
            ):
                return node.args[1].value, node.lineno
        return None

    def plain_calls(self, number: int) -> tuple[str, list[int]] | None:
        """(function, call lines) where the line lies in a function the learner also calls plainly,
        with no checkpoint around that call (``f(h)``, not ``jax.checkpoint(f)(h)``)."""
        if self.tree is None:
            return None
        around = [
            n
            for n in ast.walk(self.tree)
            if isinstance(n, ast.FunctionDef) and n.lineno < number <= (n.end_lineno or n.lineno)
        ]
        if not around:
            return None
        name = max(around, key=lambda n: n.lineno).name
        lines = sorted(
            {n.lineno for n in ast.walk(self.tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == name}
        )
        return (name, lines) if lines else None

    def uses_of(self, name: str) -> list[int]:
        """The lines that read the variable ``name`` (an argument, say), in order."""
        if self.tree is None:
            return []
        return sorted(
            {
                n.lineno
                for n in ast.walk(self.tree)
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            }
        )

    def labels(self) -> list[tuple[str, int, bool, str]]:
        """(label, line, dropped, value) of each ``checkpoint_name(value, "label")`` the learner
        wrote; ``dropped``: the call is a statement of its own, so the labelled value it returns is
        thrown away (checkpoint_name labels a new value, not its argument); ``value``: the
        argument as written."""
        if self.tree is None:
            return []
        dropped = {id(n.value) for n in ast.walk(self.tree) if isinstance(n, ast.Expr)}
        found = []
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Call) and operation(node) == "checkpoint_name"):
                continue
            given = node.args[1:2] + [k.value for k in node.keywords if k.arg == "name"]
            if given and isinstance(given[0], ast.Constant) and isinstance(given[0].value, str):
                value = _short(ast.get_source_segment(self.text, node.args[0]) or "") if node.args else ""
                found.append((given[0].value, node.lineno, id(node) in dropped, value))
        return sorted(found, key=lambda item: item[1])

    def on_line(self, number: int):
        """The expressions that start on a line, outermost first."""
        if self.tree is None:
            return []
        return [n for n in ast.walk(self.tree) if isinstance(n, ast.expr) and getattr(n, "lineno", None) == number]


def operation(node: ast.AST | None) -> str:
    """The operation an expression calls: a function's own name, an operator's symbol."""
    if isinstance(node, ast.Call):
        func = node.func
        return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return _SYMBOLS.get(type(node.op), "")
    if isinstance(node, ast.Compare) and node.ops:
        return _SYMBOLS.get(type(node.ops[0]), "")
    if isinstance(node, ast.Subscript):
        return "indexing"
    return ""


def _parsed(text: str) -> ast.AST | None:
    try:
        return syntax.parse(text, mode="eval").body
    except (SyntaxError, ValueError):
        return None


def _short(text: str) -> str:
    return text if len(text) <= LONGEST else text[: LONGEST - 1].rstrip() + "…"


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
    return replace(residual, expr=_short(expr), op=op, in_terms=True)


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
        found.append(replace(row, expr=_short(expr), op=op, line=None, span=None, in_terms=True))
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
