"""Causes from the other structure rules (``rules.STRUCTURE_CHECKS``): what the checkpoint must
enclose, how deep checkpoints must nest, how many there must be; with advice in the shape of the
learner's code (a scan's steps, a chain of calls).
"""

from __future__ import annotations

from ..data.evidence import Structure
from ..grading.rules import (
    ENCLOSES,
    HAS_CHECKPOINT,
    MAX_CHECKPOINTS,
    MIN_CHECKPOINTS,
    MIN_DEPTH,
    NO_HAND_WRITTEN_DERIVATIVE,
    USES_POLICY,
    StructureCheck,
)
from ..packages.package import StructureRules
from ..source import Source
from .learner_checkpoints import checkpointed_functions
from .loops import turns_instead
from .placement import left_out_cause
from .shared import STRUCTURE, Cause
from .tables import numpy_table, table_outside


def structure_cause(
    found: Structure, rules: StructureRules, reference: Structure, said, source: Source
) -> Cause | None:
    """The first structure rule broken that no earlier cause says (``said``: the rules' problems, by
    the check that found each), worded by what it is about: a table, matrix products left out, the
    depth of nesting, the number of checkpoints."""
    for check, problem in said:
        if check is ENCLOSES and "`jnp.arange`" in problem and source.numpy_calls("arange"):
            return numpy_table(source, problem)
        if check is ENCLOSES and "`jnp.arange`" in problem:  # a table built outside: an input kept whole
            return table_outside(source, problem)
        if check is ENCLOSES and "matrix product" in problem:
            left_out = left_out_cause(found, rules, source, problem)
            if left_out is not None:
                return left_out
        if check not in (HAS_CHECKPOINT, NO_HAND_WRITTEN_DERIVATIVE, USES_POLICY):
            advice = _depth_advice(source) if check is MIN_DEPTH else _structure_advice(check)
            if check is MIN_CHECKPOINTS:  # one checkpoint around a loop whose turns the reference checkpoints
                advice = turns_instead(found, rules, reference, source) or advice
            return Cause(STRUCTURE, problem[0].upper() + problem[1:] + ".", advice, (problem,))
    return None


_STRUCTURE_ADVICE = {
    MIN_CHECKPOINTS: "Try: one jax.checkpoint per part of the computation the problem names.",
    MAX_CHECKPOINTS: "Try: fewer jax.checkpoint calls, each around a larger part of the computation.",
    ENCLOSES: "Try: move the whole computation into the function you checkpoint.",
}


def _depth_advice(source: Source) -> str:
    """How to nest, in the shape of the learner's code: a scan's steps, or a chain of calls."""
    steps = [(step, line) for step, line in source.scan_steps() if step.isidentifier()]
    checkpointed = checkpointed_functions(source)
    plain = [(step, line) for step, line in steps if step not in checkpointed]
    if len(steps) >= 2 and plain:  # a scan of scans already: the one step left without its checkpoint
        step, line = plain[-1]
        return (
            f"Try: checkpoint `{step}` too, the step your scan at line {line} runs: jax.lax.scan(jax.checkpoint("
            f"{step}), ...) there, so that the backward pass rebuilds a part of a part at a time."
        )
    if len(steps) == 1:  # one scan over every step: cut it into blocks, scanned by a checkpointed outer step
        step, line = steps[0]
        return (
            f"Try: a scan of scans: cut the steps into blocks (xs.reshape(math.isqrt(n), -1) for n steps), run "
            f"an outer jax.lax.scan over the blocks whose step is checkpointed and runs your scan of "
            f"jax.checkpoint({step}) (line {line}) over one block, and remove any checkpoint around the whole "
            f"scan, so that the backward pass rebuilds a part of a part at a time."
        )
    how = (
        "a scan over blocks: checkpoint the outer scan's step, and inside it the step of the inner scan over one block"
        if source.scan_steps()
        else "a chain: checkpoint its two halves, and inside each half its halves again"
    )
    return (
        f"Try: put checkpoints inside the function another jax.checkpoint wraps ({how}), so that the "
        f"backward pass rebuilds a part of a part at a time."
    )


def _structure_advice(check: StructureCheck) -> str:
    return _STRUCTURE_ADVICE.get(check, "Try: the change the sentence above names.")
