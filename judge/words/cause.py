"""A policy_violation explained: the structural cause first, in one sentence, then one thing to try.

The rules (``judge.grading.rules``) decide the verdict; this package only words it, in this precedence,
each kind of cause in a module of its own: no ``jax.checkpoint`` in the traced program, or a
hand-written ``custom_vjp``/``custom_jvp`` where a checkpoint is required (``no_checkpoint``); a
checkpoint around a whole scan (``loops``); the policy used against the one required, as the learner
wrote it (``policy``); a checkpoint in a Python loop where the reference scans (``loops``); which of
the learner's lines run outside the checkpoint (``placement``); another structure rule (``structure``,
``tables``); a label (``names``); then the residual difference in bytes (``saved_bytes``), and last
the cost rules' figures (``cost``). The residual rows follow the cause, grouped by the expression of
the learner's code that made them (``judge.grading.learner_terms``): the operations of a derivative
rule are never named on their own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..data.evidence import ResidualRow, Structure
from ..grading.rules import ENCLOSES, HAS_CHECKPOINT, MIN_CHECKPOINTS, NO_HAND_WRITTEN_DERIVATIVE, USES_POLICY
from ..packages.package import StructureRules
from ..source import Source
from .cost import cost_cause, figured
from .loops import around_the_loop, python_loop
from .names import names_cause
from .no_checkpoint import no_checkpoint_cause
from .placement import outside_cause
from .policy import policy_cause
from .saved_bytes import bytes_cause
from .shared import HAND_WRITTEN, JAX_CHECKPOINT, NO_CHECKPOINT, OUTSIDE, PLAIN, POLICY, Cause, Form, groups
from .structure import structure_cause

# Which structure checks (``rules.STRUCTURE_CHECKS``) a cause of each kind already says: no
# checkpoint at all also says that there are fewer than required.
_SAYS = {
    NO_CHECKPOINT: (HAS_CHECKPOINT, MIN_CHECKPOINTS),
    HAND_WRITTEN: (NO_HAND_WRITTEN_DERIVATIVE,),
    POLICY: (USES_POLICY,),
    OUTSIDE: (ENCLOSES,),
}


def cause(
    *,
    found: Structure,
    rules: StructureRules,
    reference: Structure,
    said: list[tuple[str, str]],
    rows: list[ResidualRow],
    missing: list[ResidualRow],
    mine_bytes: int,
    their_bytes: int,
    source: Source,
    keepers: list[str],
    cost: list[str] = (),
    form: Form = PLAIN,
) -> Cause | None:
    """The first structural cause there is, with what to try; None when nothing differs.

    ``said``: the structure rules' problems, by the name of the check that found each; ``cost``:
    the cost rules' (the last cause: what a gradient step costs follows from its structure).
    """
    found_cause = _first_cause(
        found=found,
        rules=rules,
        reference=reference,
        said=said,
        rows=rows,
        missing=missing,
        mine_bytes=mine_bytes,
        their_bytes=their_bytes,
        source=source,
        keepers=keepers,
        form=form,
    )
    if found_cause is None and cost:
        found_cause = figured(cost_cause(cost[0], found, source, reference, rows), cost[0])
    if found_cause is None:
        return None
    covers = [p for check, p in said if check in _SAYS.get(found_cause.kind, ())]
    if found_cause.kind == POLICY:
        covers += keepers
    if found.checkpoints and _equinox_only(source):  # their checkpoint by the name they wrote
        found_cause = replace(
            found_cause,
            sentence=JAX_CHECKPOINT.sub("eqx.filter_checkpoint", found_cause.sentence),
            advice=JAX_CHECKPOINT.sub("eqx.filter_checkpoint", found_cause.advice),
        )
    return replace(found_cause, covers=tuple(covers) + found_cause.covers)


def _equinox_only(source: Source) -> bool:
    """The learner checkpoints with Equinox's filter_checkpoint only (no jax.checkpoint or remat)."""
    return "filter_checkpoint" in source.names and not re.search(
        r"\bjax\.(checkpoint|remat)\b(?!_)|\bimport\b[^\n]*\b(checkpoint|remat)\b(?!_)", source.text
    )


def _first_cause(
    *,
    found: Structure,
    rules: StructureRules,
    reference: Structure,
    said,
    rows,
    missing,
    mine_bytes: int,
    their_bytes: int,
    source: Source,
    keepers: list[str],
    form: Form,
) -> Cause | None:
    """The structure's causes in their precedence (this module's docstring), the first that applies."""
    first = no_checkpoint_cause(found, rules, reference, said, source, form) or around_the_loop(
        found, rules, reference, source
    )
    if first is not None:
        return first
    same_values = not missing and not any(r.offending for r in rows)
    first = (
        policy_cause(found, rules, said, keepers, source, same_values, reference)
        or python_loop(found, reference, source, said)
        or outside_cause(found, rules, rows, source, form)
        or structure_cause(found, rules, reference, said, source)
    )
    if first is not None:
        return first
    if any(r.offending for r in rows) or missing:
        return names_cause(found, rules, rows, missing, source) or bytes_cause(
            rules, rows, missing, mine_bytes, their_bytes, found, source
        )
    return None


def message(
    found_cause: Cause | None, rows: list[ResidualRow], missing: list[ResidualRow], others: list[str], shown: int = 2
) -> str:
    """The learner-facing message of a policy_violation: cause, advice, then what differs."""
    parts = [f"{g.phrase()}: {g.rows[0].reason}" for g in groups(rows, missing)] + others
    text = "; ".join(parts[:shown])
    if len(parts) > shown:
        text += f" (and {len(parts) - shown} more: see the residual table)"
    if found_cause is None:
        return text
    detail = f" {found_cause.detail}" if found_cause.detail else ""
    return f"{found_cause.sentence}{detail} {found_cause.advice}" + (f" Differences: {text}" if text else "")
