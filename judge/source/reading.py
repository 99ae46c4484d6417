"""A submission's source, read once: its text, its lines, its syntax tree, and what the judge reads from them.

Every reader on the trusted side (the gate, the source reader, the learner's terms, the hints, the
wording, the explorer) asks one ``Source`` instead of parsing the text again: the text is parsed
(through ``judge.data.syntax``, the one parser entry) the first time a reader needs the tree, and
each fact (the scopes, the checkpoints, the loops) is computed the first time it is asked for, so a
reader pays only for what it uses. A ``Source`` never runs the code, and no reader may change its tree.
"""

from __future__ import annotations

import ast
import re
from functools import cached_property

from ..data import syntax
from . import loops, sites
from .expressions import operation
from .scopes import Scopes, import_aliases, spelled_path

# A learner's text may fail to parse in any of these ways; the tree is then None and ``error`` says why.
UNPARSABLE = (SyntaxError, ValueError, RecursionError, MemoryError)


class Source:
    """The submission's source, read once: its lines, its syntax tree and the facts read from it."""

    def __init__(self, text: str):
        self.text = text

    @classmethod
    def of(cls, source: Source | str) -> Source:
        """``source`` itself, or a reading of a text (a caller that has no ``Source``: a test, the command line)."""
        return source if isinstance(source, Source) else cls(source)

    # ------------------------------------------------------------------ the text and its tree

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def _parsed(self) -> tuple[ast.Module | None, Exception | None]:
        try:
            return syntax.parse(self.text, filename="submission.py"), None
        except UNPARSABLE as exc:  # the learner's text: anything may fail
            return None, exc

    @property
    def tree(self) -> ast.Module | None:
        """The module's syntax tree; None where the text does not parse."""
        return self._parsed[0]

    @property
    def error(self) -> Exception | None:
        """Why the text does not parse (a ``SyntaxError`` with its line, a ``ValueError`` for a NUL...); None where it does."""
        return self._parsed[1]

    @cached_property
    def names(self) -> set[str]:
        """Every identifier of the text: what a learner may be told they wrote."""
        return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", self.text))

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

    def on_line(self, number: int):
        """The expressions that start on a line, outermost first."""
        if self.tree is None:
            return []
        return [n for n in ast.walk(self.tree) if isinstance(n, ast.expr) and getattr(n, "lineno", None) == number]

    # ------------------------------------------------------------------ scopes: names, imports, functions

    @cached_property
    def scopes(self) -> Scopes | None:
        """Each name's binding, scope by scope (``judge.source.scopes``); None where the text does not parse."""
        return Scopes(self.tree) if self.tree is not None else None

    @cached_property
    def imports(self) -> dict[str, str]:
        """Each name an import binds, with the dotted path it stands for (``eqx`` -> ``equinox``)."""
        return import_aliases(self.tree) if self.tree is not None else {}

    def path(self, node: ast.AST) -> str:
        """The dotted path an expression names through the imports (``ck`` -> ``jax.checkpoint``); "" where none."""
        return spelled_path(self.imports, node)

    @cached_property
    def functions(self) -> dict[str, ast.FunctionDef]:
        """Every ``def`` of the module by name, nested ones too (of two alike, the later)."""
        if self.tree is None:
            return {}
        return {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)}

    @cached_property
    def top_level_functions(self) -> list[str]:
        """The names the module defines with ``def`` at its top level, in order."""
        return [n.name for n in self.tree.body if isinstance(n, ast.FunctionDef)] if self.tree is not None else []

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

    # ------------------------------------------------------------------ checkpoint sites and labels

    @cached_property
    def checkpoints(self) -> list[sites.Written]:
        """Every checkpoint written, decorators and calls, in source order (``judge.source.sites``)."""
        return sites.checkpoints(self.tree, self.imports) if self.tree is not None else []

    def partial_name(self) -> tuple[str, str]:
        """How the module spells functools.partial, and the import it needs ("" where it has one)."""
        return sites.partial_name(self.imports)

    @cached_property
    def _labels(self) -> list[tuple[str, int, bool, str]]:
        return sites.labels(self.tree, self.text) if self.tree is not None else []

    def labels(self) -> list[tuple[str, int, bool, str]]:
        """(label, line, dropped, value) of each ``checkpoint_name(value, "label")`` (``sites.labels``)."""
        return list(self._labels)

    # ------------------------------------------------------------------ loops

    @cached_property
    def python_loops(self) -> list[ast.For | ast.While]:
        return loops.python_loops(self.tree) if self.tree is not None else []

    @cached_property
    def lax_loops(self) -> list[loops.LaxLoop]:
        return loops.lax_loops(self.tree, self.scopes) if self.tree is not None else []

    def loop_around(self, number: int | None) -> ast.For | ast.While | None:
        """The innermost Python ``for`` or ``while`` statement whose body holds the line."""
        return loops.loop_around(self.python_loops, number)

    @cached_property
    def _scan_steps(self) -> list[tuple[str, int]]:
        return loops.scan_steps(self.tree, self.text) if self.tree is not None else []

    def scan_steps(self) -> list[tuple[str, int]]:
        """(step, line) of each scan as written (``loops.scan_steps``)."""
        return list(self._scan_steps)

    def unchanged_carry(self) -> list[tuple[str, int]]:
        """(name, line) of what a scan's step carries through unchanged (``loops.unchanged_carry``)."""
        return loops.unchanged_carry(self.tree) if self.tree is not None else []

    def fixed_blocks(self) -> tuple[int, int] | None:
        """(count, line) of a ``.reshape(N, -1)`` with a number N written in the source: the steps
        cut into a fixed count of blocks, whatever their number."""
        for node in ast.walk(self.tree) if self.tree is not None else ():
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
        for node in ast.walk(self.tree) if self.tree is not None else ():
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
