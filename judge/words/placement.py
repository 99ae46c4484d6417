"""Causes about where the checkpoints sit: the learner's lines outside every checkpoint (a function
called without its checkpoint, lines before or after it), matrix products left out of the one
required, a checkpoint placed where it cannot save memory, and a peak over the budget by how the
checkpoints cut the computation into segments against the reference's cut.
"""

from __future__ import annotations

import re

from ..data import policy_names
from ..data.evidence import ResidualRow, Structure
from ..packages.package import StructureRules
from ..source import Source
from .learner_checkpoints import CHECKPOINTED
from .shared import COST, OUTSIDE, OVER, PLAIN, Cause, Form, at, policy_keyword


def outside_cause(
    found: Structure, rules: StructureRules, rows: list[ResidualRow], source: Source, form: Form = PLAIN
) -> Cause | None:
    """Values the submission saves that the policy would not, made by lines no checkpoint encloses."""
    if not found.checkpoints:
        return None
    wanted = [
        i
        for i, c in enumerate(found.checkpoints)
        if c.on_path is not False and (rules.policy is None or policy_names.from_wire(c.policy) == rules.policy)
    ]
    if not wanted:
        return None
    inside = {op.line for op in found.on_path if set(op.checkpoints) & set(wanted)}
    lines = sorted(
        {
            r.line
            for r in rows
            # a labelled value saved outside is a line to move too (its row is "named", not "primitive")
            if r.offending
            and r.kind in ("primitive", "named")
            and r.kept_by is None
            and r.line
            and r.line not in inside
        }
    )
    if not lines:
        return None
    checkpoint = found.checkpoints[wanted[0]]
    for n in lines:  # a function of the learner's called without its checkpoint: the call is what to mend
        plain = source.plain_calls(n)
        if plain is not None and not any(source.loop_around(call) for call in plain[1]):
            name, calls = plain
            policy = policy_keyword(rules)
            return Cause(
                OUTSIDE,
                f"Your code calls `{name}` without a checkpoint at line {calls[0]} "
                f"(`{source.line(calls[0]).split('  #')[0].strip()}`), so reverse mode saves what it makes there "
                f"as if there were no checkpoint.",
                f"Try: checkpoint that call too: jax.checkpoint({name}{policy})(...) at line {calls[0]}.",
            )
    shown = lines[:3]
    written = "; ".join(f"line {n} (`{source.line(n)}`)" if source.line(n) else f"line {n}" for n in shown)
    more = f" and {len(lines) - len(shown)} more" if len(lines) > len(shown) else ""
    verb = "runs" if len(lines) == 1 else "run"
    return Cause(
        OUTSIDE,
        f"Part of the computation lies outside your jax.checkpoint{at(checkpoint.line)}: "
        f"{written}{more} {verb} before or after it, so reverse mode saves what "
        f"{'it makes' if len(lines) == 1 else 'they make'} as if there were no checkpoint.",
        _move_in_advice(lines, checkpoint, source, form, policy_keyword(rules)),
    )


def _move_in_advice(lines: list[int], checkpoint, source: Source, form: Form, policy: str) -> str:
    """Lines to move into the checkpointed function: into a function of the learner's own (one
    written for it where what they checkpoint is not theirs, a module), passing along a flag those
    lines branch on, which must then be static."""
    them = "that line" if len(lines) == 1 else "those lines"
    written = source.line(checkpoint.line) if checkpoint.line else ""
    wrapped = CHECKPOINTED.search(written) if "filter_checkpoint" in written else None  # Equinox's: a module
    if wrapped and not re.search(rf"\bdef {wrapped.group(1)}\b|\b{wrapped.group(1)}\s*=\s*lambda\b", source.text):
        name, verb = wrapped.group(1), "applies" if len(lines) == 1 else "apply"
        advice = (
            f"Try: `{name}` is not a function of yours, so nothing can move into it: write one that runs the "
            f"whole model on the inputs (`{name}` and the layers {them} {verb} after it), checkpoint that "
            f"function instead, {form.call}(that_function{policy}), and compute the loss from what it returns"
        )
    else:
        advice = f"Try: move {them} into the function you checkpoint"
    for _, arg in form.static:
        how = [h for h in (_branches_on(source, n, arg) for n in lines) if h is not None]
        if how:
            header = next((h for h in how if h), "")
            advice += (
                (f", along with the `{header}` line" if header else "")
                + f"; `{arg}` is a plain Python value, so pass it to that function as well and mark it static: "
                f"static_argnums=(its position in that function,)"
            )
            break
    return advice + "."


def _branches_on(source: Source, line: int, name: str) -> str | None:
    """How line ``line`` depends on ``name``: "" where it reads it, the ``if`` it sits under where
    that reads it, None where neither."""
    text = _raw_line(source, line)
    if re.search(rf"\b{name}\b", text):
        return ""
    indent = len(text) - len(text.lstrip())
    for above in range(line - 1, 0, -1):
        header = _raw_line(source, above)
        if not header.strip():
            continue
        depth = len(header) - len(header.lstrip())
        if depth < indent:
            if header.lstrip().startswith(("if ", "elif ")) and re.search(rf"\b{name}\b", header):
                return header.strip()
            indent = depth
        if depth == 0:
            return None
    return None


def _raw_line(source: Source, number: int) -> str:
    """A line as written, indented (``Source.line`` strips it)."""
    return source.lines[number - 1] if 1 <= number <= len(source.lines) else ""


def left_out_cause(found: Structure, rules: StructureRules, source: Source, problem: str) -> Cause | None:
    """Matrix products the required checkpoint must enclose, left outside it, by the learner's
    lines: a function of theirs called without the checkpoint (its call named), or lines written
    before or after it."""
    _, lines = _products_outside(found)
    if not lines:
        return None
    policy = policy_keyword(rules)
    plain = source.plain_calls(lines[0])
    if plain is not None:
        name, calls = plain
        return Cause(
            OUTSIDE,
            f"Your code calls `{name}` without a checkpoint at line {calls[0]} "
            f"(`{source.line(calls[0]).split('  #')[0].strip()}`), so the matrix products it makes there run "
            f"outside every checkpoint, and reverse mode saves what they make as if there were none.",
            f"Try: checkpoint that call too: jax.checkpoint({name}{policy})(...) at line {calls[0]}.",
            (problem,),
        )
    shown = "; ".join(f"line {n} (`{source.line(n).split('  #')[0].strip()}`)" for n in lines[:3])
    more = f" and {len(lines) - 3} more" if len(lines) > 3 else ""
    one = len(lines) == 1
    return Cause(
        OUTSIDE,
        f"Part of the computation lies outside your jax.checkpoint: {shown}{more} "
        f"{'runs' if one else 'run'} before or after it, so the policy never sees what {'it makes' if one else 'they make'} "
        f"and reverse mode saves it as if there were no checkpoint.",
        f"Try: move {'that line' if one else 'those lines'} into the function you checkpoint, and pass it the "
        f"inputs {'it reads' if one else 'they read'} instead of {'its result' if one else 'their results'}.",
        (problem,),
    )


def placed_late(found: Structure) -> Cause | None:
    """A checkpoint that cannot save memory because of where it sits: around the last matrix product
    (the backward pass needs its values first, so it rebuilds them at once), or around all of them."""
    dots = [op for op in found.on_path if op.primitive == "dot_general"]
    if not dots or not dots[-1].checkpoints:
        return None
    checkpoint = found.checkpoints[dots[-1].checkpoints[0]]
    where = (
        "wraps the whole computation, so the backward pass starts by rebuilding all of it and holds "
        "everything at once, as with no checkpoint"
        if all(op.checkpoints for op in dots)
        else "wraps the last part of the computation, whose values the backward pass needs first, so it "
        "rebuilds them at once and holds them as if they had been saved"
    )
    return Cause(
        COST,
        f"Your checkpoints save no memory in the backward pass: your jax.checkpoint{at(checkpoint.line)} {where}.",
        "Try: checkpoint the early part instead (the first stages), whose values wait longest for the backward "
        "pass, and leave the last stage outside the checkpoint.",
    )


def _products_outside(structure: Structure) -> tuple[int, list[int]]:
    """How many matrix products run outside every checkpoint, and on which lines."""
    outside = [op for op in structure.on_path if op.primitive == "dot_general" and not op.checkpoints]
    return sum(op.count for op in outside), sorted({op.line for op in outside if op.line})


def segments_cause(found: Structure, source: Source, reference: Structure) -> Cause | None:
    """A peak over the budget, by how the checkpoints cut the computation, against the reference's
    cut: products left outside every checkpoint, a segment rebuilt whole that is larger than the
    reference's largest, more segments (each keeping its input between the passes), or a scan cut
    into a fixed, small number of blocks."""
    mine = [c for c in found.checkpoints if c.on_path is not False]
    theirs = [c for c in reference.checkpoints if c.on_path is not False]
    if not mine or not theirs:
        return None
    outside, lines = _products_outside(found)
    plain = source.plain_calls(lines[0]) if lines else None
    if outside > _products_outside(reference)[0] and plain is not None:
        name, calls = plain
        return Cause(
            COST,
            f"{OVER}your code calls `{name}` without a checkpoint at line {calls[0]} "
            f"(`{source.line(calls[0]).split('  #')[0]}`), so the backward pass keeps what its matrix products "
            f"make there, all at once, besides what your checkpoints rebuild.",
            f"Try: give that call a jax.checkpoint too: jax.checkpoint({name})(...) in the loop."
            if source.loop_around(calls[0]) is not None
            else f"Try: checkpoint that part too: split the call so that all but its last layers run in "
            f"jax.checkpoint({name})(...), each segment a few layers long (the last ones need not be rebuilt: the "
            f"backward pass reaches them first).",
        )
    if outside > _products_outside(reference)[0] and lines:
        shown = "; ".join(f"line {n} (`{source.line(n).split('  #')[0]}`)" for n in lines[:2])
        return Cause(
            COST,
            f"{OVER}{shown} {'runs' if len(lines) == 1 else 'run'} outside every checkpoint, so the backward "
            f"pass keeps what {'it makes' if len(lines) == 1 else 'they make'} for every pass through "
            f"{'it' if len(lines) == 1 else 'them'}, all at once.",
            # one change, the one that fits: a checkpoint of its own would still keep that part's inputs
            # for every pass, which is over the limit where the budget is tight (microbatch_accumulation)
            f"Try: checkpoint that part too: move {'that line' if len(lines) == 1 else 'those lines'} into the "
            f"function you checkpoint, so that the backward pass rebuilds what "
            f"{'it makes' if len(lines) == 1 else 'they make'} one pass at a time.",
        )
    largest = max(mine, key=lambda c: c.encloses.get("dot_general", 0))
    products = largest.encloses.get("dot_general", 0)
    if products > max(c.encloses.get("dot_general", 0) for c in theirs):
        return Cause(
            COST,
            f"{OVER}your jax.checkpoint{at(largest.line)} encloses {products} matrix products, and the backward "
            f"pass rebuilds all of them at once, holding what they make together.",
            "Try: checkpoint smaller segments (a block or a few layers each), so that the backward pass rebuilds "
            "fewer values at once.",
        )
    if len(mine) > len(theirs) and not any(c.in_loop for c in mine):
        # how many of the learner's parts one of the reference's segments holds: its products over theirs
        each = max(c.encloses.get("dot_general", 0) for c in mine)
        size = round(max(c.encloses.get("dot_general", 0) for c in theirs) / each) if each else 0
        return Cause(
            COST,
            f"{OVER}each of your {len(mine)} checkpoints keeps its input between the passes, so with segments "
            f"this small the backward pass holds {len(mine)} inputs at once besides the segment it rebuilds.",
            f"Try: segments of {size}: one jax.checkpoint around every {size} of the parts you checkpoint one by one "
            f"now (a function that runs {size} of them, called through jax.checkpoint(...) once per segment), so "
            f"that fewer inputs are kept between the passes and the backward pass still rebuilds little at once; "
            f"leave the last part out of the segments: the backward pass reaches it first."
            if size > 1
            else "Try: fewer checkpoints, each around a few layers (about the square root of their number), so "
            "that the inputs kept between the passes and the segment rebuilt at once both stay small.",
        )
    segment = source.segment_length()
    looped = [c for c in mine if c.in_loop and c.depth == 0]
    if segment is not None and segment[0] > 1 and looped:
        length, line = segment
        return Cause(
            COST,
            f"{OVER}your jax.checkpoint{at(looped[0].line)} wraps segments of {length} blocks (line {line}, "
            f"`{source.line(line).split('  #')[0].strip()}`), and the backward pass rebuilds a whole segment at "
            f"once, holding what its {length} blocks make together.",
            "Try: checkpoint every block instead of segments of several: jax.lax.scan(jax.checkpoint(block), "
            "...) over all the blocks, so that the backward pass rebuilds one block at a time.",
        )
    fixed = source.fixed_blocks()
    if fixed is not None and any(c.in_loop and c.depth >= 1 for c in mine):
        count, line = fixed
        return Cause(
            COST,
            f"{OVER}your outer scan cuts the steps into {count} blocks (line {line}, "
            f"`{source.line(line).split('  #')[0]}`), so rebuilding one block in the backward pass holds "
            f"1/{count} of all the steps' carries at once.",
            "Try: about the square root of the number of steps as the number of blocks (math.isqrt(steps)), so "
            "that the blocks kept and the steps of the block rebuilt are both few.",
        )
    return None
