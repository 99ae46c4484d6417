"""Where the learner's source checkpoints, read from its text: the decorators that checkpoint a
function, the functions checkpointed by name, whether a line lies in one. The trace says what runs
in a checkpoint; these say where the learner wrote it, for the advice to name.
"""

from __future__ import annotations

import ast
import re

from ..source import Source

# The function a checkpoint call wraps, by its name: jax.checkpoint(f, ...), eqx.filter_checkpoint(f).
CHECKPOINTED = re.compile(r"(?:checkpoint|remat)\(\s*([A-Za-z_]\w*)\s*[,)]")


def checkpoint_decorators(source: Source):
    """(function, decorator) for each decorator of the learner's that checkpoints its function."""
    for n in ast.walk(source.tree) if source.tree is not None else ():
        if isinstance(n, ast.FunctionDef):
            for d in n.decorator_list:
                if re.search(r"checkpoint|remat", ast.unparse(d)):
                    yield n, d


def checkpointed_functions(source: Source) -> set[str]:
    """The learner's functions they checkpoint by name: ``jax.checkpoint(f)``, or a decorator."""
    if source.tree is None:
        return set()
    called = {
        n.args[0].id
        for n in ast.walk(source.tree)
        if isinstance(n, ast.Call)
        and n.args
        and isinstance(n.args[0], ast.Name)
        and getattr(n.func, "attr", getattr(n.func, "id", None)) in ("checkpoint", "remat", "filter_checkpoint")
    }
    decorated = {function.name for function, _ in checkpoint_decorators(source)}
    return called | decorated


def in_checkpointed_function(source: Source, line: int) -> bool:
    """Whether a line lies in a function the learner checkpoints."""
    checkpointed = checkpointed_functions(source)
    return source.tree is not None and any(
        isinstance(n, ast.FunctionDef) and n.lineno < line <= (n.end_lineno or n.lineno) and n.name in checkpointed
        for n in ast.walk(source.tree)
    )
