"""What the explorer reads from the learner's source text, never running it: the names given
with ``checkpoint_name``, the function's parameters, the block its scan runs."""

from __future__ import annotations

import ast

from ..source import Source

MAX_NAMES = 6  # how many names get a plan of their own


def labelled_names(source: Source | str) -> list[str]:
    """The string literals the source passes to ``checkpoint_name`` (read, never run)."""
    found = []
    tree = Source.of(source).tree
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if callee != "checkpoint_name":
            continue
        literal = (
            node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "name"), None)
        )
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str) and literal.value not in found:
            found.append(literal.value)
    return found[:MAX_NAMES]


def parameter_names(source: Source | str, function: str, count: int) -> list[str]:
    """The function's own parameter names, read from its source without running it."""
    tree = Source.of(source).tree
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == function:
            names = [a.arg for a in node.args.posonlyargs + node.args.args]
            if len(names) >= count:
                return names[:count]
    return [f"arg{i}" for i in range(count)]


def scanned_block(source: Source | str) -> str | None:
    """What the source's first ``jax.lax.scan`` runs (its first argument, as written), or None if
    the source calls no scan: then no placement plan is tried. Read from the text, never run; the
    harness places checkpoints in every outermost scan the function really calls."""
    tree = Source.of(source).tree
    if tree is None:
        return None
    bare = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "jax.lax"
        for alias in node.names
        if alias.name == "scan"
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        called = (
            isinstance(func, ast.Attribute)
            and func.attr == "scan"
            and ast.unparse(func.value).split(".")[-1] == "lax"
            or isinstance(func, ast.Name)
            and func.id in bare
        )
        if called:
            return ast.unparse(node.args[0])
    return None


def defines_function(source: Source | str, name: str) -> bool:
    """Whether the source defines ``name`` with ``def`` at its top level (read, never run)."""
    return name in Source.of(source).top_level_functions


def default_function(source: Source | str) -> str | None:
    """What the source defines last at its top level, the one a learner usually means: a function
    (``def``), or a name bound to a call (a module built from shapes:
    ``model = eqx.filter_eval_shape(MLP, ...)``); None where it defines neither."""
    tree = Source.of(source).tree
    if tree is None:
        return None
    defined = [
        n.name if isinstance(n, ast.FunctionDef) else n.targets[0].id
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
        or isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Call)
    ]
    return defined[-1] if defined else None
