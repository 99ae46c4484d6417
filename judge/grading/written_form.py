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

from ..source import Source
from ..source.sites import BARE, CALL, CALLED, PARTIAL, Written, api_spelled

__all__ = [
    "BARE",
    "CALL",
    "CALLED",
    "PARTIAL",
    "Written",
    "argument_advice",
    "at_line",
    "decorator_advice",
    "of_function",
    "options_only",
    "with_argument",
]


def at_line(source: Source | str, line: int | None) -> Written | None:
    """The checkpoint written at ``line``, or the one that checkpoints a function called there; the
    module's only checkpoint where the line says nothing (a decorator is traced at no line of its own)."""
    source = Source.of(source)
    written = source.checkpoints
    if line and source.tree is not None:
        here = [w for w in written if w.line == line]
        if here:
            return here[0]
        called = {
            n.func.id
            for n in ast.walk(source.tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and getattr(n, "lineno", None) == line
        }
        decorated = [w for w in written if w.kind != CALL and w.function in called]
        if decorated:
            return decorated[0]
    return written[0] if len(written) == 1 else None


def of_function(source: Source | str, name: str) -> Written | None:
    """The checkpoint that wraps the function ``name``: its decorator, or a call given it first."""
    return next((w for w in Source.of(source).checkpoints if w.function == name), None)


def with_argument(source: Source | str, written: Written, keyword: str, value: str) -> tuple[str, str]:
    """``written`` again with ``keyword=value`` added (or replacing the one there; ``value`` is code, written
    as given), in the form that runs:
    a decorator's options through functools.partial (Equinox's filter_checkpoint takes them directly).
    Returns (the code, the import it needs, or "")."""
    node = written.node
    added = ast.keyword(arg=keyword, value=ast.Name(id=value))
    if written.kind == CALL or written.kind == PARTIAL:
        call = ast.Call(func=node.func, args=list(node.args), keywords=_replaced(node.keywords, added))
        return (f"@{ast.unparse(call)}" if written.kind == PARTIAL else ast.unparse(call)), ""
    given = list(node.keywords) if written.kind == CALLED else []
    if written.equinox:  # @eqx.filter_checkpoint(policy=...) is Equinox's own form
        api = node.func if written.kind == CALLED else node
        return f"@{ast.unparse(ast.Call(func=api, args=[], keywords=_replaced(given, added)))}", ""
    partial, needs = Source.of(source).partial_name()
    api = node.func if written.kind == CALLED else node
    call = ast.Call(func=ast.Name(id=partial), args=[api], keywords=_replaced(given, added))
    return f"@{ast.unparse(call)}", needs


def _replaced(keywords: list[ast.keyword], added: ast.keyword) -> list[ast.keyword]:
    return [k for k in keywords if k.arg != added.arg] + [added]


def argument_advice(source: Source | str, written: Written, keyword: str, value: str) -> str:
    """What to write, as a clause after "Try: ": the learner's checkpoint again with the argument,
    in place of what is there, and why a decorator needs functools.partial."""
    code, needs = with_argument(source, written, keyword, value)
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


def decorator_advice(source: Source | str, line: int | None, keyword: str, value: str) -> str | None:
    """What to write for a checkpoint written as a decorator at ``line`` to take ``keyword=value``, as a
    clause after "Try: " (``@jax.checkpoint(prevent_cse=False)`` would raise a TypeError); None for a
    call, whose arguments go between its own parentheses, or where the line holds no checkpoint."""
    source = Source.of(source)
    written = at_line(source, line)
    if written is None or written.kind == CALL:
        return None
    return argument_advice(source, written, keyword, value)


def options_only(source: Source | str, line: int | None) -> tuple[str, str, str, str] | None:
    """A checkpoint called with its options and no function at ``line`` (``@jax.checkpoint(policy=...)``,
    or ``jax.checkpoint(policy=...)(f)``), which raises a TypeError: (as written, its options' values
    left out; the API as spelled; the form that runs, "" where the source does not show it; the
    import it needs). None where the line holds none."""
    source = Source.of(source)
    if source.tree is None or not line:
        return None
    decorators = {id(d): f for f in ast.walk(source.tree) if isinstance(f, ast.FunctionDef) for d in f.decorator_list}
    outer = {id(n.func): n for n in ast.walk(source.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Call)}
    for node in ast.walk(source.tree):
        if not (
            isinstance(node, ast.Call)
            and node.lineno == line
            and api_spelled(source.imports, node.func)
            and not node.args
        ):
            continue
        api = api_spelled(source.imports, node.func)
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
            partial, needs = source.partial_name()
            call = ast.Call(func=ast.Name(id=partial), args=[node.func], keywords=list(node.keywords))
            return f"@{short}", api, f"@{ast.unparse(call)}", needs
        if id(node) in outer and outer[id(node)].args:
            wrapped = outer[id(node)]
            mended = ast.Call(func=node.func, args=[wrapped.args[0]], keywords=list(node.keywords))
            return f"{short}({ast.unparse(wrapped.args[0])})", api, ast.unparse(mended), ""
        return short, api, "", ""
    return None
