"""The statements of a learner's module that the traced program never runs: a ``__main__``
self-test, and definitions that nothing reachable from the entry point reads. The source reader
(``source_reading``) judges only the rest. ``reader``: the source reader's names (``path`` gives a
name's dotted library path, or None)."""

from __future__ import annotations

import ast

from ..source.scopes import stored


def never_run(reader, tree: ast.Module, entry: str | None) -> set[int]:
    """The module's statements that the traced program never runs (their ids): an ``if __name__ ==
    "__main__":`` block (the judge loads the module under another name), and each definition or
    assignment whose names no statement reachable from the entry point reads. The judge traces the
    entry point alone, so a checkpoint there can only reach the program through a name that the
    entry point reads, directly or through what it reads. Reading a name by a string instead is
    refused by the gate. Where the entry point is not a name the module binds, everything counts."""
    main_blocks = {id(stmt) for stmt in tree.body if _is_main_block(stmt)}
    binders: dict[str, list[ast.stmt]] = {}
    definitions = set()  # statements whose only effect on import is to bind their names
    for stmt in tree.body:
        if id(stmt) in main_blocks:
            continue
        if _only_binds(reader, stmt):
            definitions.add(id(stmt))
        for name in _names_bound(stmt):
            binders.setdefault(name, []).append(stmt)
    if entry is None or entry not in binders:
        return main_blocks
    # Statements that are not definitions (imports, expressions, loops at module level) run when the
    # module loads: they count as reached, and so does what they read.
    reached: set[int] = set()
    todo = [stmt for stmt in tree.body if id(stmt) not in definitions and id(stmt) not in main_blocks]
    todo += binders[entry]
    while todo:
        stmt = todo.pop()
        if id(stmt) in reached:
            continue
        reached.add(id(stmt))
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                todo.extend(binders.get(node.id, ()))
    return main_blocks | (definitions - reached)


# Libraries whose functions do nothing to the learner's module when called on import (building a
# policy, wrapping a function): a definition that calls only these binds its names and nothing else.
_LIBRARIES = ("jax", "equinox", "functools", "numpy", "math")


def _only_binds(reader, stmt: ast.stmt) -> bool:
    """Whether the statement's only effect on import is to bind its names: a function, or an
    assignment to plain names, whose decorators and value call nothing but the libraries'. Anything
    else may file a function somewhere on import (a decorator of the learner's that registers it, an
    assignment into a dict, a call of the learner's own), and so counts as run."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return all(
            _library(reader, d.func if isinstance(d, ast.Call) else d) and not _calls_own(reader, d)
            for d in stmt.decorator_list
        )
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        return not _calls_own(reader, stmt.value)
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.value is None or not _calls_own(reader, stmt.value)
    return False  # classes (their bodies run on import), loops, expressions, assignments into things


def _calls_own(reader, expression: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and not _library(reader, n.func) for n in ast.walk(expression))


def _library(reader, func: ast.AST) -> bool:
    path = reader.path(func)
    return path is not None and path.split(".")[0] in _LIBRARIES


def _names_bound(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.split(".")[0] for alias in stmt.names]
    return stored(stmt)  # assignments, and whatever a loop, a with or a try at module level binds


def _is_main_block(stmt: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` (either side), without an ``else``, which would run."""
    if not isinstance(stmt, ast.If) or stmt.orelse or not isinstance(stmt.test, ast.Compare):
        return False
    test = stmt.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(texts) == 1
