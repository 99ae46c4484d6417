"""The loops of a submission: Python's ``for`` and ``while``, and the loops of ``jax.lax`` (``scan``,
``fori_loop``, ``while_loop``, ``map``) with the functions they run as their body.

A Python loop runs its body once per turn while JAX traces, so each turn's values are kept apart;
a lax loop traces its body once. Both matter to what a checkpoint keeps, and the wording tells a
learner which one their code wrote.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .scopes import Scopes

# The loops of jax.lax, with the positions of the functions they run in their body.
LAX_LOOPS = {"jax.lax.scan": (0,), "jax.lax.fori_loop": (2,), "jax.lax.while_loop": (0, 1), "jax.lax.map": (0,)}


@dataclass(frozen=True)
class LaxLoop:
    """A call of one of jax.lax's loops: its API (its full path), its line, and the arguments it runs as its body."""

    api: str
    line: int
    node: ast.Call
    bodies: tuple[ast.expr, ...]


def python_loops(tree: ast.Module) -> list[ast.For | ast.While]:
    """Every Python ``for`` and ``while`` statement, in the order of a walk of the tree."""
    return [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))]


def lax_loops(tree: ast.Module, scopes: Scopes) -> list[LaxLoop]:
    """Every call of a jax.lax loop, named through the scopes (``from jax import lax``, ``lax.scan``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            api = scopes.path(node.func)
            if api in LAX_LOOPS:
                bodies = tuple(node.args[p] for p in LAX_LOOPS[api] if p < len(node.args))
                found.append(LaxLoop(api, node.lineno, node, bodies))
    return found


def loop_around(loops: list[ast.For | ast.While], number: int | None) -> ast.For | ast.While | None:
    """The innermost Python ``for`` or ``while`` statement whose body holds the line."""
    if not number:
        return None
    around = [n for n in loops if n.body[0].lineno <= number <= (n.end_lineno or n.lineno)]
    return max(around, key=lambda n: n.lineno, default=None)


def _is_scan(node: ast.AST) -> bool:
    # as written: any callable named scan (jax.lax.scan, lax.scan, an imported scan)
    return (
        isinstance(node, ast.Call)
        and bool(node.args)
        and (getattr(node.func, "attr", None) == "scan" or getattr(node.func, "id", None) == "scan")
    )


def scan_steps(tree: ast.Module, text: str) -> list[tuple[str, int]]:
    """(step, line) of each scan: ``jax.lax.scan(step, ...)`` gives ("step", its line); a lambda
    written in place, ("lambda ...", its line) as written."""
    return sorted(
        (
            n.args[0].id if isinstance(n.args[0], ast.Name) else ast.get_source_segment(text, n.args[0]),
            n.lineno,
        )
        for n in ast.walk(tree)
        if _is_scan(n) and isinstance(n.args[0], (ast.Name, ast.Lambda))
    )


def unchanged_carry(tree: ast.Module) -> list[tuple[str, int]]:
    """(name, line) of what a scan's step carries through unchanged: its carry unpacked as
    ``h, W = carry`` and returned as ``(..., W)`` in the same place. A checkpointed scan saves
    its carry at every step it keeps, so such a value is saved once per kept step."""
    steps = {n.args[0].id for n in ast.walk(tree) if _is_scan(n) and isinstance(n.args[0], ast.Name)}
    found = []
    for fn in ast.walk(tree):
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
