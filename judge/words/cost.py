"""Causes from the cost rules, the last there are (what a gradient step costs follows from its
structure): a peak over the budget, FLOPs over the limit, a loop whose trips cannot be counted,
checkpoints that save no memory; and the measured figure put in the cause's own sentence.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..data.evidence import Structure
from ..grading.rules import Overrun
from ..source import Source
from .learner_checkpoints import CHECKPOINTED, checkpoint_decorators, checkpointed_functions
from .placement import placed_late, segments_cause
from .policy import policy_keeps
from .shared import COST, OVER, RECOMPUTES, Cause, at

# A learner's call into a compiled library: jnp.linalg, jax.scipy.linalg, a host callback.
_LIBRARY_CALL = re.compile(r"\blinalg\.|\bpure_callback$|\bio_callback$")


def _library_call_line(source: Source) -> int | None:
    """The line of the first call of the code (never of a docstring) into a compiled library."""
    calls = [n for n in ast.walk(source.tree) if isinstance(n, ast.Call) and _LIBRARY_CALL.search(ast.unparse(n.func))]
    return min((n.lineno for n in calls), default=None)


def cost_cause(problem: str, found: Structure, source: Source, reference: Structure | None = None, rows=()) -> Cause:
    detail = problem[0].upper() + problem[1:] + "."
    if "peaks at" in problem and reference is not None:
        kept = policy_keeps(found, rows, source, reference)
        if kept is not None:
            return replace(kept, covers=(problem,), detail=detail)
        segments = segments_cause(found, source, reference)
        if segments is not None:
            return replace(segments, covers=(problem,), detail=detail)
    carried = source.unchanged_carry()
    if "peaks at" in problem and carried:
        name, line = carried[0]
        return Cause(
            COST,
            f"Your gradient step holds more memory at once than this problem allows: your scan's "
            f"step carries `{name}` through unchanged (line {line}), and a checkpointed scan saves "
            f"its carry at every step it keeps, so each of them holds a copy of `{name}`.",
            f"Try: take `{name}` out of the carry: let the step function read it from the enclosing "
            f"function (a closure), so that only what changes from step to step is carried and saved.",
            (problem,),
            detail,
        )
    if "number of trips" in problem:  # rules.check_cost: a loop the verifier's walk cannot count
        line = next((n for n, text in enumerate(source.lines, 1) if "while_loop(" in text), None)
        return Cause(
            COST,
            f"Your gradient step runs a while_loop{at(line)} whose number of trips is computed while the "
            f"step runs, so the judge cannot count its FLOPs against this problem's limit.",
            "Try: give the loop bounds fixed when your function is traced: jax.lax.fori_loop(0, n, ...) "
            "with a Python int n, or jax.lax.scan over the steps, and keep the work it does within the limit.",
            (problem,),
            detail,
        )
    if "whose work the judge cannot count" in problem:  # rules.check_cost: a library call out of the walk's sight
        called = problem.split("calls ", 1)[1].split(", whose work", 1)[0]
        line = _library_call_line(source)
        return Cause(
            COST,
            f"Your gradient step calls {called}{f', on line {line},' if line else ''} which runs in a "
            f"compiled library outside the program the judge reads, so its FLOPs cannot be counted "
            f"against this problem's limit.",
            "Try: remove the call: this problem's step needs only jnp's arithmetic and matrix products, "
            "whose FLOPs the judge counts.",
            (problem,),
            detail,
        )
    if "FLOPs" in problem:
        nested = [c for c in found.checkpoints if c.on_path is not False and c.depth >= 1]
        if nested:  # each level of checkpoints recomputes what it encloses once more
            return Cause(
                COST,
                f"Your gradient step recomputes more than this problem allows: your jax.checkpoint"
                f"{at(nested[0].line)} sits inside another one, so the backward pass recomputes its "
                f"part twice, once for each level.",
                f"Try: keep one level of checkpoints: remove the outer jax.checkpoint"
                f"{at(_outer_line(found, nested[0], source))} and keep the inner one, so that each value is "
                f"recomputed once and the backward pass still rebuilds small parts at a time.",
                (problem,),
                detail,
            )
        return Cause(
            COST,
            "Your gradient step recomputes more than this problem allows.",
            "Try: recompute less: let the policy save the values that are expensive to compute again "
            "(the matrix products, say), or checkpoint fewer parts.",
            (problem,),
            detail,
        )
    if "saves no memory" in problem:
        placed = placed_late(found)
        if placed is not None:
            return replace(placed, covers=(problem,), detail=detail)
        return Cause(
            COST,
            "Your checkpoints save no memory in the backward pass.",
            "Try: checkpoint a part whose saved values outweigh its inputs.",
            (problem,),
            detail,
        )
    return Cause(
        COST,
        "Your gradient step holds more memory at once than this problem allows.",
        "Try: hold less at once: checkpoint smaller segments (or nest checkpoints), so that the "
        "backward pass keeps fewer values alive together.",
        (problem,),
        detail,
    )


def figured(found: Cause, problem: str) -> Cause:
    """The figure measured against the limit in the cause's own sentence, its reason after it:
    "Your gradient step peaks at X bytes alive at once, Y over the Z allowed, because ..."."""
    if not isinstance(problem, Overrun):
        return found
    over = problem.measured - problem.allowed
    if "peaks at" in problem:
        prefix = OVER
        lead = (
            f"Your gradient step peaks at {problem.measured:.0f} bytes alive at once, {over:.0f} over the "
            f"{problem.allowed:.0f} allowed"
        )
    else:
        prefix = RECOMPUTES
        lead = (
            f"Your gradient step needs {problem.measured:.0f} FLOPs, {over:.0f} over the {problem.allowed:.0f} allowed"
        )
    if found.sentence.startswith(prefix):
        return replace(found, sentence=f"{lead}, because {found.sentence[len(prefix) :]}", detail="")
    if found.sentence == prefix[:-2] + ".":  # no cause the judge can establish: the figures at least
        return replace(found, sentence=f"{lead}.", detail="")
    return found


def _outer_line(found: Structure, inner, source: Source) -> int | None:
    """The line of the checkpoint ``inner`` is nested in (a decorator's, where it is one: its
    checkpoint is traced at no line of the learner's)."""
    outer = found.checkpoints[inner.parent] if inner.parent is not None else None
    if outer is None:
        return None
    if outer.line and re.search(r"checkpoint|remat", source.line(outer.line)):
        return outer.line
    decorators = list(checkpoint_decorators(source))
    for function, decorator in decorators if outer.line else ():  # a call of a decorated function
        if re.search(rf"\b{function.name}\(", source.line(outer.line)):
            return decorator.lineno
    checkpointed = checkpointed_functions(source)
    for function, decorator in decorators:  # the decorated function that checkpoints inside
        inside = [n for statement in function.body for n in ast.walk(statement) if isinstance(n, ast.Call)]
        if any(CHECKPOINTED.search(ast.unparse(n)) or ast.unparse(n.func) in checkpointed for n in inside):
            return decorator.lineno
    return None
