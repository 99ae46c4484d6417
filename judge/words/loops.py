"""Causes and advice about loops: a checkpoint around a whole ``jax.lax.scan`` instead of its step,
one called in a Python loop where the reference scans, and what to checkpoint where the learner's
code scans or loops over its layers (the step given to scan, each turn or segments of turns).
"""

from __future__ import annotations

import ast

from ..data.evidence import Structure
from ..explorer import loops as explore_loops
from ..grading.rules import MAX_CHECKPOINTS, MIN_CHECKPOINTS
from ..packages.package import StructureRules
from ..source import Source
from .learner_checkpoints import checkpoint_decorators
from .shared import STRUCTURE, Cause, at, policy_keyword


def scan_step_advice(rules: StructureRules, reference: Structure, source: Source) -> str | None:
    """Where the reference checkpoints the step of a scan and the learner's code scans a function
    of its own: wrapping the whole computation would rerun every step at once (and the peak with
    it), so the advice names that step (with eqx.filter_checkpoint in Equinox code, whose steps hold functions)."""
    steps = source.scan_steps()
    if not steps or not any(c.in_loop for c in reference.checkpoints):
        return None
    step, line = steps[0]
    # Equinox code checkpoints with eqx.filter_checkpoint, which passes what is not an array through
    checkpoint = "eqx.filter_checkpoint" if "equinox" in source.text else "jax.checkpoint"
    policy = policy_keyword(rules)
    return (
        f"Try: checkpoint the step you give to jax.lax.scan at line {line}: jax.lax.scan({checkpoint}({step}"
        f"{policy}), ...), so that the backward pass reruns one step at a time, not the whole scan at once."
    )


_MATMULS = ("dot", "matmul", "einsum", "tensordot", "inner", "vdot")


def _matmuls(node: ast.AST, functions: dict[str, ast.FunctionDef], seen: frozenset = frozenset()) -> int:
    """Matrix products a piece of source makes, counted through the module's functions it calls."""
    count = 0
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
            count += 1
        elif isinstance(n, ast.Call):
            name = getattr(n.func, "id", None)
            if name in functions and name not in seen:
                count += _matmuls(functions[name], functions, seen | {name})
            elif getattr(n.func, "attr", None) in _MATMULS:
                count += 1
    return count


def loop_turn_advice(rules: StructureRules, reference: Structure, source: Source) -> str | None:
    """Where the reference checkpoints several parts side by side (a Python loop's turns, unrolled
    in its trace) and the learner's code loops over its layers with no checkpoint: one checkpoint
    around all of it would rebuild every turn at once (and peak as high as none), so the advice
    names the loop, and how many turns each checkpoint takes: the reference's matrix products per
    checkpoint over those of one turn. Not where checkpoints must nest (``no_checkpoint.no_checkpoint_advice``)."""
    looped = [c for c in reference.checkpoints if c.depth == 0]
    if len(looped) < 2 or rules.min_depth or source.tree is None or source.scan_steps() or "equinox" in source.text:
        return None
    loop = explore_loops.find(source, "")
    if loop is None:
        return None
    functions = {n.name: n for n in source.tree.body if isinstance(n, ast.FunctionDef)}
    per_turn = sum(_matmuls(statement, functions) for statement in loop.node.body)
    per_checkpoint = min(c.encloses.get("dot_general", 0) for c in looped)
    turns = round(per_checkpoint / per_turn) if per_turn and per_checkpoint else 1
    policy = policy_keyword(rules)
    where = f"the loop at line {loop.line}"
    if turns > 1:
        return (
            f"Try: checkpoint {where} in segments of {turns} turns: a function that runs {turns} of them, "
            f"called through jax.checkpoint(...{policy}) once per segment, so that the backward pass rebuilds "
            f"{turns} turns at a time (one checkpoint per turn keeps more of their inputs at once, and one "
            f"around the whole loop rebuilds every turn at once); leave the last turns out of the segments: "
            f"the backward pass reaches them first, so rebuilding them would be work for nothing."
        )
    # the turn as a function of its own: right whatever the loop's body computes around its calls
    carried, params = ", ".join(loop.carried), ", ".join(loop.targets + loop.carried)
    return (
        f"Try: checkpoint each turn of {where}: move its body into a function, say `def turn({params})` "
        f"returning `{carried}`, and write `{carried} = jax.checkpoint(turn{policy})({params})` in the loop, so "
        f"that the backward pass rebuilds one turn at a time (one jax.checkpoint around the whole loop would "
        f"rebuild every turn at once)."
    )


def turns_instead(found: Structure, rules: StructureRules, reference: Structure, source: Source) -> str | None:
    """Where one checkpoint wraps a loop whose turns the reference checkpoints one by one: the turn
    advice (``loop_turn_advice``), and the checkpoint around the whole taken away."""
    turns = loop_turn_advice(rules, reference, source)
    whole = [c for c in found.checkpoints if c.on_path is not False]
    if turns is None or len(whole) != 1:
        return None
    # a decorator's checkpoint is traced at no line of the learner's
    line = whole[0].line or next((d.lineno for _, d in checkpoint_decorators(source)), None)
    return f"{turns.removesuffix('.')}; and remove the jax.checkpoint around all of it{at(line)}."


def around_the_loop(found: Structure, rules: StructureRules, reference: Structure, source: Source) -> Cause | None:
    """A checkpoint around the whole ``scan`` where the reference checkpoints the step it runs: its
    policy is not the matter (the right one there still fails), the place is."""
    on_path = [c for c in found.checkpoints if c.on_path is not False]
    lines = [c.line for c in on_path]
    if (
        not on_path
        or rules.min_depth  # a nesting problem: the depth is told first (a structure rule)
        or not any(c.in_loop for c in reference.checkpoints)
        or any(c.in_loop for c in on_path)
        or len(set(lines)) < len(lines)  # a Python loop's checkpoints (``python_loop``)
        or "scan" not in source.names
    ):
        return None
    policy = policy_keyword(rules)
    steps = [step for step, _ in source.scan_steps() if step.isidentifier()]
    step = steps[0] if len(steps) == 1 else "step"  # the learner's step by its name, where there is one
    return Cause(
        STRUCTURE,
        f"Your jax.checkpoint{at(on_path[0].line)} wraps the whole jax.lax.scan, not the step it runs: the "
        f"backward pass then reruns the whole loop at once and holds what it recomputes for all of its steps "
        f"together, where a checkpointed step is rerun one step at a time.",
        f"Try: checkpoint the step function and give that to scan, as jax.lax.scan(jax.checkpoint({step}{policy}), "
        f"...), with no checkpoint around the scan itself.",
    )


def python_loop(found: Structure, reference: Structure, source: Source, said) -> Cause | None:
    """A checkpoint called in a Python loop where the reference runs one checkpointed step in a
    scan: Python unrolls the loop, each pass is a checkpoint of its own, and what runs between
    them (the slicing of the stacked weights, say) lies outside every checkpoint."""
    if not any(c.in_loop for c in reference.checkpoints):
        return None
    lines = [c.line for c in found.checkpoints if c.on_path is not False and not c.in_loop and c.line]
    repeated = sorted({n for n in lines if lines.count(n) > 1})
    loop = next((source.loop_around(n) for n in repeated if source.loop_around(n) is not None), None)
    if loop is None:
        return None
    header = source.line(loop.lineno).split("  #")[0].strip()
    return Cause(
        STRUCTURE,
        f"Your jax.checkpoint{at(repeated[0])} runs in a Python loop (line {loop.lineno}, "
        f"`{header}`): Python unrolls the loop into one checkpoint per pass, and what runs "
        f"between them lies outside every checkpoint. This problem runs one checkpointed step "
        f"under jax.lax.scan.",
        "Try: replace the Python loop with jax.lax.scan over the stacked layers, with the checkpointed "
        "function as the step it runs (the step returns the new carry and None).",
        tuple(p for check, p in said if check in (MAX_CHECKPOINTS, MIN_CHECKPOINTS)),
    )
