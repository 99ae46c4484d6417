"""The checkpoints a submission writes, as it writes them, and the values it labels.

A checkpoint site is a decorator (``@jax.checkpoint``, ``@functools.partial(jax.remat, policy=...)``,
``@jax.checkpoint(policy=...)``, which fails) or a call (``jax.checkpoint(f, policy=...)``), found
through the module's import aliases (``from jax import checkpoint as ck``); advice is written again
in that very form (``judge.grading.written_form``). What the policy *is*, followed through names and
scopes, is the source reader's question (``judge.grading.source_reading``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .expressions import operation, short
from .scopes import spelled_path

# The spellings of the checkpoint APIs, by their full path (``import jax`` and ``import equinox as eqx``
# give the first; ``from jax import checkpoint`` gives ``checkpoint``).
APIS = {"jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint", "equinox.filter_checkpoint"}
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

    @property
    def policy(self) -> str:
        """The policy argument as written ("" where none is given by name; a bare decorator gives none)."""
        given = self.node.keywords if isinstance(self.node, ast.Call) else []
        return next((ast.unparse(k.value) for k in given if k.arg == "policy"), "")


def api_spelled(aliases: dict[str, str], node: ast.AST) -> str:
    """A checkpoint API as the learner spelled it (``jax.remat``, ``ck``); "" where ``node`` names none."""
    return ast.unparse(node) if spelled_path(aliases, node) in APIS else ""


def _partial_api(aliases: dict[str, str], node: ast.AST) -> str:
    """The API a ``functools.partial(API, ...)`` call fills in, as spelled; "" where it is none."""
    if isinstance(node, ast.Call) and spelled_path(aliases, node.func) == "functools.partial" and node.args:
        return api_spelled(aliases, node.args[0])
    return ""


def checkpoints(tree: ast.Module, aliases: dict[str, str]) -> list[Written]:
    """Every checkpoint of the module, decorators and calls, in source order."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                if api_spelled(aliases, d):
                    found.append(Written(BARE, api_spelled(aliases, d), d.lineno, d, node.name))
                elif _partial_api(aliases, d):
                    found.append(Written(PARTIAL, _partial_api(aliases, d), d.lineno, d, node.name))
                elif isinstance(d, ast.Call) and api_spelled(aliases, d.func) and not d.args:
                    found.append(Written(CALLED, api_spelled(aliases, d.func), d.lineno, d, node.name))
        elif isinstance(node, ast.Call) and api_spelled(aliases, node.func) and node.args:
            target = node.args[0]
            name = target.id if isinstance(target, ast.Name) else ""
            found.append(Written(CALL, api_spelled(aliases, node.func), node.lineno, node, name))
    decorators = {id(w.node) for w in found if w.kind != CALL}
    return sorted((w for w in found if w.kind != CALL or id(w.node) not in decorators), key=lambda w: w.line)


def partial_name(aliases: dict[str, str]) -> tuple[str, str]:
    """How the module spells functools.partial, and the import it needs ("" where it has one)."""
    for name, path in aliases.items():
        if path == "functools.partial":
            return name, ""
    for name, path in aliases.items():
        if path == "functools":
            return f"{name}.partial", ""
    return "functools.partial", "import functools"


def labels(tree: ast.Module, text: str) -> list[tuple[str, int, bool, str]]:
    """(label, line, dropped, value) of each ``checkpoint_name(value, "label")`` the learner
    wrote; ``dropped``: the call is a statement of its own, so the labelled value it returns is
    thrown away (checkpoint_name labels a new value, not its argument); ``value``: the
    argument as written."""
    dropped = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and operation(node) == "checkpoint_name"):
            continue
        given = node.args[1:2] + [k.value for k in node.keywords if k.arg == "name"]
        if given and isinstance(given[0], ast.Constant) and isinstance(given[0].value, str):
            value = short(ast.get_source_segment(text, node.args[0]) or "") if node.args else ""
            found.append((given[0].value, node.lineno, id(node) in dropped, value))
    return sorted(found, key=lambda item: item[1])
