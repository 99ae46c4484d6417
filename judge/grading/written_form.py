"""How the learner wrote a checkpoint, so that advice follows that form.

"Add policy=... to your jax.checkpoint" is right for a call, ``jax.checkpoint(f, policy=...)``, and
wrong for a decorator: ``@jax.checkpoint(policy=...)`` calls jax.checkpoint with no function and
raises a TypeError. A decorator takes options through ``functools.partial``
(``@functools.partial(jax.checkpoint, policy=...)``); Equinox's ``eqx.filter_checkpoint`` takes them
directly (``@eqx.filter_checkpoint(policy=...)``). This module finds the checkpoint of a function,
or at a line, in the learner's source and writes it again with one argument more, in the learner's
own spelling (``jax.remat``, ``partial`` or ``functools.partial`` as imported).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..data import syntax

# The spellings of the checkpoint APIs, by their full path (``import jax`` and ``import equinox as eqx``
# give the first; ``from jax import checkpoint`` gives ``checkpoint``).
_APIS = {"jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint", "equinox.filter_checkpoint"}
BARE, PARTIAL, CALLED, CALL = "decorator", "partial_decorator", "called_decorator", "call"


@dataclass(frozen=True)
class Written:
    """One checkpoint as written: ``kind`` (a bare decorator ``@jax.checkpoint``; a decorator
    through ``functools.partial``; a decorator called with options only, ``@jax.checkpoint(policy=...)``,
    which fails; a call ``jax.checkpoint(f, ...)``), the API as spelled, the line, its node, and the
    function it checkpoints (its name, where the source says)."""

    kind: str
    api: str  # as the learner spelled it: "jax.checkpoint", "jax.remat", "checkpoint", "eqx.filter_checkpoint"
    line: int
    node: ast.expr
    function: str = ""

    @property
    def equinox(self) -> bool:
        return "filter_checkpoint" in self.api

    @property
    def text(self) -> str:
        """As written, with the decorator's ``@``."""
        shown = ast.unparse(self.node)
        return f"@{shown}" if self.kind != CALL else shown


class Reader:
    """The learner's module, read once: its imports (what each name stands for) and its checkpoints."""

    def __init__(self, text: str):
        try:
            self.tree = syntax.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # the learner's text: anything may fail
            self.tree = None
        self.aliases: dict[str, str] = {}
        for node in ast.walk(self.tree) if self.tree is not None else ():
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def path(self, node: ast.AST) -> str:
        """``jax.checkpoint`` for ``jax.checkpoint``, ``checkpoint`` (from jax) and ``remat``'s kin; "" otherwise."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, "")
        if isinstance(node, ast.Attribute):
            owner = self.path(node.value)
            return f"{owner}.{node.attr}" if owner else ""
        return ""

    def _api(self, node: ast.AST) -> str:
        return ast.unparse(node) if self.path(node) in _APIS else ""

    def _partial_api(self, node: ast.AST) -> str:
        """The API a ``functools.partial(API, ...)`` call fills in, as spelled; "" where it is none."""
        if isinstance(node, ast.Call) and self.path(node.func) == "functools.partial" and node.args:
            return self._api(node.args[0])
        return ""

    def partial_name(self) -> tuple[str, str]:
        """How this module spells functools.partial, and the import it needs ("" where it has one)."""
        for name, path in self.aliases.items():
            if path == "functools.partial":
                return name, ""
        for name, path in self.aliases.items():
            if path == "functools":
                return f"{name}.partial", ""
        return "functools.partial", "import functools"

    def checkpoints(self) -> list[Written]:
        """Every checkpoint of the module, decorators and calls, in source order."""
        found = []
        for node in ast.walk(self.tree) if self.tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in node.decorator_list:
                    if self._api(d):
                        found.append(Written(BARE, self._api(d), d.lineno, d, node.name))
                    elif self._partial_api(d):
                        found.append(Written(PARTIAL, self._partial_api(d), d.lineno, d, node.name))
                    elif isinstance(d, ast.Call) and self._api(d.func) and not d.args:
                        found.append(Written(CALLED, self._api(d.func), d.lineno, d, node.name))
            elif isinstance(node, ast.Call) and self._api(node.func) and node.args:
                target = node.args[0]
                name = target.id if isinstance(target, ast.Name) else ""
                found.append(Written(CALL, self._api(node.func), node.lineno, node, name))
        decorators = {id(w.node) for w in found if w.kind != CALL}
        return sorted((w for w in found if w.kind != CALL or id(w.node) not in decorators), key=lambda w: w.line)

    def functions(self) -> dict[str, ast.FunctionDef]:
        if self.tree is None:
            return {}
        return {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)}


def at_line(text: str, line: int | None) -> Written | None:
    """The checkpoint written at ``line``, or the one that checkpoints a function called there; the
    module's only checkpoint where the line says nothing (a decorator is traced at no line of its own)."""
    reader = Reader(text)
    written = reader.checkpoints()
    if line and reader.tree is not None:
        here = [w for w in written if w.line == line]
        if here:
            return here[0]
        called = {
            n.func.id
            for n in ast.walk(reader.tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and getattr(n, "lineno", None) == line
        }
        decorated = [w for w in written if w.kind != CALL and w.function in called]
        if decorated:
            return decorated[0]
    return written[0] if len(written) == 1 else None


def of_function(text: str, name: str) -> Written | None:
    """The checkpoint that wraps the function ``name``: its decorator, or a call given it first."""
    return next((w for w in Reader(text).checkpoints() if w.function == name), None)


def with_argument(text: str, written: Written, keyword: str, value: str) -> tuple[str, str]:
    """``written`` again with ``keyword=value`` added (or replacing the one there; ``value`` is code, written
    as given), in the form that runs:
    a decorator's options through functools.partial (Equinox's filter_checkpoint takes them directly).
    Returns (the code, the import it needs, or "")."""
    reader = Reader(text)
    node = written.node
    added = ast.keyword(arg=keyword, value=ast.Name(id=value))
    if written.kind == CALL or written.kind == PARTIAL:
        call = ast.Call(func=node.func, args=list(node.args), keywords=_replaced(node.keywords, added))
        return (f"@{ast.unparse(call)}" if written.kind == PARTIAL else ast.unparse(call)), ""
    given = list(node.keywords) if written.kind == CALLED else []
    if written.equinox:  # @eqx.filter_checkpoint(policy=...) is Equinox's own form
        api = node.func if written.kind == CALLED else node
        return f"@{ast.unparse(ast.Call(func=api, args=[], keywords=_replaced(given, added)))}", ""
    partial, needs = reader.partial_name()
    api = node.func if written.kind == CALLED else node
    call = ast.Call(func=ast.Name(id=partial), args=[api], keywords=_replaced(given, added))
    return f"@{ast.unparse(call)}", needs


def _replaced(keywords: list[ast.keyword], added: ast.keyword) -> list[ast.keyword]:
    return [k for k in keywords if k.arg != added.arg] + [added]


def argument_advice(text: str, written: Written, keyword: str, value: str) -> str:
    """What to write, as a clause after "Try: ": the learner's checkpoint again with the argument,
    in place of what is there, and why a decorator needs functools.partial."""
    code, needs = with_argument(text, written, keyword, value)
    imported = f" (with `{needs}` at the top)" if needs else ""
    if written.kind == BARE and not written.equinox:
        return (
            f"write the decorator at line {written.line} as `{code}`{imported}, in place of `{written.text}`: "
            f"a decorator is given only the function, so {written.api}'s other arguments go in through "
            f"functools.partial"
        )
    if written.kind in (CALL, PARTIAL):
        verb = "set" if any(k.arg == keyword for k in written.node.keywords) else "add"
        return f"{verb} {keyword}={value} {'on' if verb == 'set' else 'to'} your {written.api} at line {written.line}, as `{code}`"
    return f"write `{code}`{imported} in place of `{written.text}` at line {written.line}"


def decorator_advice(text: str, line: int | None, keyword: str, value: str) -> str | None:
    """What to write for a checkpoint written as a decorator at ``line`` to take ``keyword=value``, as a
    clause after "Try: " (``@jax.checkpoint(prevent_cse=False)`` would raise a TypeError); None for a
    call, whose arguments go between its own parentheses, or where the line holds no checkpoint."""
    written = at_line(text, line)
    if written is None or written.kind == CALL:
        return None
    return argument_advice(text, written, keyword, value)


def options_only(text: str, line: int | None) -> tuple[str, str, str, str] | None:
    """A checkpoint called with its options and no function at ``line`` (``@jax.checkpoint(policy=...)``,
    or ``jax.checkpoint(policy=...)(f)``), which raises a TypeError: (as written, its options' values
    left out; the API as spelled; the form that runs, "" where the source does not show it; the
    import it needs). None where the line holds none."""
    reader = Reader(text)
    if reader.tree is None or not line:
        return None
    decorators = {id(d): f for f in ast.walk(reader.tree) if isinstance(f, ast.FunctionDef) for d in f.decorator_list}
    outer = {id(n.func): n for n in ast.walk(reader.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Call)}
    for node in ast.walk(reader.tree):
        if not (isinstance(node, ast.Call) and node.lineno == line and reader._api(node.func) and not node.args):
            continue
        api = reader._api(node.func)
        # as written, each option's value left out (its name says enough)
        short = ast.unparse(
            ast.Call(
                func=node.func,
                args=[],
                keywords=[ast.keyword(arg=k.arg, value=ast.Constant(...)) for k in node.keywords],
            )
        )
        if id(node) in decorators:
            if "filter_checkpoint" in api:  # Equinox's own form runs: not what failed
                return None
            partial, needs = reader.partial_name()
            call = ast.Call(func=ast.Name(id=partial), args=[node.func], keywords=list(node.keywords))
            return f"@{short}", api, f"@{ast.unparse(call)}", needs
        if id(node) in outer and outer[id(node)].args:
            wrapped = outer[id(node)]
            mended = ast.Call(func=node.func, args=[wrapped.args[0]], keywords=list(node.keywords))
            return f"{short}({ast.unparse(wrapped.args[0])})", api, ast.unparse(mended), ""
        return short, api, "", ""
    return None
