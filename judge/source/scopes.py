"""What the names of a submission stand for: per scope (each function, each lambda, the module),
what each name is bound to, followed through assignments to an import's dotted path; and the
module's imports and functions, as a whole.

Two readings, for two kinds of question. ``Scopes`` answers exactly, scope by scope, and says
"uncertain" where a name is bound twice, or is a parameter or a loop variable: what the source
says for certain is all a verdict may rest on (``judge.grading.source_reading``). ``imports`` is
the module's import aliases all in one table, enough to spell advice in the learner's own names
(``jax.remat``, ``partial`` as imported).
"""

from __future__ import annotations

import ast

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Statements that bind names to something the reader does not follow (or, for two of them, to a value).
_OTHER_BINDERS = (
    ast.AnnAssign,
    ast.AugAssign,
    ast.NamedExpr,
    ast.For,
    ast.AsyncFor,
    ast.With,
    ast.AsyncWith,
    ast.comprehension,
    ast.ExceptHandler,
    ast.Global,
    ast.Nonlocal,
    ast.Delete,
)


class Scopes:
    """What each name is bound to, per function (and the module): an import's dotted path, the
    one value assigned to it, or nothing certain (assigned twice, a parameter, a loop variable)."""

    UNCERTAIN = object()

    def __init__(self, tree: ast.Module):
        self.bindings: dict[ast.AST, dict[str, object]] = {}
        self.parent: dict[ast.AST, ast.AST] = {}
        self._collect(tree, tree)

    def _bind(self, scope: ast.AST, name: str, value) -> None:
        table = self.bindings.setdefault(scope, {})
        # bound twice is uncertain, unless to the same thing (`import jax` then `import jax.numpy`)
        table[name] = value if name not in table or table[name] == value else self.UNCERTAIN

    def _collect(self, node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.parent[child] = node
            inner = scope
            if isinstance(child, _FUNCTIONS):
                if not isinstance(child, ast.Lambda):
                    self._bind(scope, child.name, child)
                args = child.args
                for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                    if a is not None:
                        self._bind(child, a.arg, self.UNCERTAIN)
                inner = child
            elif isinstance(child, ast.ClassDef):
                self._bind(scope, child.name, child)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for alias in child.names:
                    if isinstance(child, ast.Import):
                        path = alias.name if alias.asname else alias.name.split(".")[0]
                        self._bind(scope, alias.asname or path, ("import", path))
                    else:
                        self._bind(scope, alias.asname or alias.name, ("import", f"{child.module}.{alias.name}"))
            elif isinstance(child, ast.Assign):
                for target in child.targets:
                    value = child.value if isinstance(target, ast.Name) else self.UNCERTAIN
                    for name in stored(target):
                        self._bind(scope, name, value)
            elif isinstance(child, _OTHER_BINDERS):
                value = (
                    child.value if isinstance(child, (ast.AnnAssign, ast.NamedExpr)) and child.value else self.UNCERTAIN
                )
                for name in stored(child):
                    self._bind(scope, name, value)
                if isinstance(child, (ast.Global, ast.Nonlocal)):
                    for name in child.names:  # bound elsewhere, by a scope the reader does not tie it to
                        self._bind(scope, name, self.UNCERTAIN)
            self._collect(child, inner)

    def lookup(self, name: str, at: ast.AST):
        scope = self.scope_of(at)
        while scope is not None:
            table = self.bindings.get(scope, {})
            if name in table:
                return table[name]
            scope = self.scope_of(scope) if scope in self.parent else None
        return None  # a builtin, or never bound

    def scope_of(self, node: ast.AST) -> ast.AST | None:
        node = self.parent.get(node)
        while node is not None and not isinstance(node, (*_FUNCTIONS, ast.Module)):
            node = self.parent.get(node)
        return node

    def value(self, node: ast.AST):
        """A name's one value, followed through assignments: an import path, an expression, or UNCERTAIN."""
        seen = 0
        while isinstance(node, ast.Name) and seen < 20:
            bound = self.lookup(node.id, node)
            if bound is None:
                return None
            if bound is self.UNCERTAIN or isinstance(bound, tuple):
                return bound
            node, seen = bound, seen + 1
        return node

    def path(self, node: ast.AST) -> str | None:
        """The dotted import path an expression names (``cp.dots_saveable`` -> ``jax.checkpoint_policies.dots_saveable``)."""
        if isinstance(node, ast.Attribute):
            base = self.path(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Name):
            bound = self.value(node)
            if isinstance(bound, tuple) and bound and bound[0] == "import":
                return bound[1]
            if isinstance(bound, (ast.Attribute, ast.Name)):
                return self.path(bound)
        return None


def stored(node: ast.AST) -> list[str]:
    """The names an assignment target (or a statement binding names) stores to."""
    return [sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del))]


def import_aliases(tree: ast.Module) -> dict[str, str]:
    """Every name an import binds anywhere in the module, with the dotted path it stands for
    (``import equinox as eqx``: eqx -> equinox; ``from jax import checkpoint``: checkpoint ->
    jax.checkpoint); a relative import binds nothing the judge knows."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def spelled_path(aliases: dict[str, str], node: ast.AST) -> str:
    """The dotted path an expression names through the module's imports; "" where it names none."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, "")
    if isinstance(node, ast.Attribute):
        owner = spelled_path(aliases, node.value)
        return f"{owner}.{node.attr}" if owner else ""
    return ""
