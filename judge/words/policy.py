"""Causes about the policy: the learner's checkpoint uses another policy than the one required (or
is off the path, wraps only part, splits a combined policy in two, or another checkpoint decides),
and a peak over the budget because the learner's policy keeps what the reference's rebuilds.
"""

from __future__ import annotations

import re

from ..data import policy_names
from ..data.evidence import Structure
from ..grading import written_form
from ..grading.rules import USES_POLICY, policy_as_written
from ..packages.package import StructureRules
from ..source import Source
from .names import labels_advice, listed
from .shared import COST, OVER, POLICY, Cause, and_lines, at, spelled

# Why the required policy matters, by (the policy used, the one required, whether both keep the
# same values here): where they keep the same values, what would differ on another network.
_WHY_THE_POLICY = {
    (
        "dots_saveable",
        "dots_with_no_batch_dims_saveable",
        True,
    ): " On this network the two keep the same values (none of its products has a batch dimension), but "
    "dots_saveable also keeps batched products, such as attention scores, which grow with the batch and "
    "sequence; the required policy recomputes those.",
    (
        "dots_with_no_batch_dims_saveable",
        "dots_saveable",
        False,
    ): " The two differ on products with batch dimensions (a batched matmul's, attention scores'): "
    "dots_with_no_batch_dims_saveable recomputes them, and this problem wants them kept.",
}


def _only_part(found: Structure, reference: Structure, source: Source) -> str:
    """The learner's lines that run outside every checkpoint an operation the reference runs inside
    one (``line 7 (`...`)``), or "" where the checkpoints cover what the reference's cover."""
    theirs = {op.primitive for op in reference.on_path if not op.checkpoints}
    lines = sorted({op.line for op in found.on_path if not op.checkpoints and op.primitive not in theirs and op.line})
    if not lines:
        return ""
    shown = [f"line {n} (`{source.line(n).split('  #')[0]}`)" for n in lines[:2]]
    return " and ".join(shown) + (" run" if len(lines) > 1 else " runs")


def policy_cause(
    found: Structure,
    rules: StructureRules,
    said,
    keepers: list[str],
    source: Source,
    same_values: bool = False,
    reference: Structure | None = None,
) -> Cause | None:
    if rules.policy is None:
        return None
    required = policy_names.render(rules.policy)
    if any(check is USES_POLICY for check, _ in said):
        idle = [c for c in found.checkpoints if c.on_path is False and policy_names.from_wire(c.policy) == rules.policy]
        if idle:
            return Cause(
                POLICY,
                f"Your jax.checkpoint with policy={required}{at(idle[0].line)} is not on the path "
                f"from your inputs to the output, so it changes nothing in your gradient.",
                "Try: call the checkpointed function on your inputs and return what it computes.",
            )
        used = [c for c in found.checkpoints if c.on_path is not False] or found.checkpoints
        first = used[0]
        part = _only_part(found, reference, source) if reference is not None else ""
        if part:  # a policy alone would not mend a checkpoint around the wrong part
            return Cause(
                POLICY,
                f"Your jax.checkpoint{at(first.line)} uses {policy_as_written(first, source.names)}, and wraps "
                f"only part of the computation: {part} outside it, where this problem requires one "
                f"jax.checkpoint with policy={required} around the whole computation.",
                f"Try: put the whole computation in one function and checkpoint that: jax.checkpoint(f, "
                f"policy={spelled(rules)}), with nothing of it outside.",
            )
        halves = _halves_apart(used, rules.policy)
        if halves:
            return Cause(
                POLICY,
                f"Your {len(used)} jax.checkpoints{and_lines(used)} each use one of the two policies "
                f"this problem combines, {halves}: each part of your code keeps only what its own policy "
                f"saves, where this problem requires one jax.checkpoint whose policy saves what either "
                f"saves, {required}.",
                f"Try: one jax.checkpoint around the whole computation, with policy={spelled(rules)}, in place "
                f"of your {len(used)}.",
            )
        why = _WHY_THE_POLICY.get(
            (policy_names.render(policy_names.from_wire(first.policy)), required, same_values), ""
        )
        labels = labels_advice(rules.policy, source)
        lists = _offload_lists(policy_names.from_wire(first.policy), rules.policy)
        if lists:  # the names in the wrong list, not two policies of 200 characters each to compare
            return Cause(
                POLICY,
                f"Your jax.checkpoint{at(first.line)} uses {policy_names.OFFLOAD_NAMES} with names in the wrong "
                f"lists: your policy {lists}.",
                f"Try: names_which_can_be_saved={list(rules.policy[1])!r}, names_which_can_be_offloaded="
                f"{list(rules.policy[2])!r} in your {policy_names.OFFLOAD_NAMES}{at(_offload_line(source))}{labels}.",
            )
        return Cause(
            POLICY,
            f"Your jax.checkpoint{at(first.line)} uses {policy_as_written(first, source.names)}, where this "
            f"problem requires {required}.{why}",
            _policy_advice(first, rules, source, labels),
        )
    if keepers:
        return Cause(
            POLICY,
            f"In your program, {keepers[0]}.",
            f"Try: only one jax.checkpoint, with policy={spelled(rules)}, around that computation "
            f"(a checkpoint nested in it with another policy decides for the values it makes).",
        )
    return None


def _policy_advice(first, rules: StructureRules, source: Source, labels: str) -> str:
    """The required policy on the learner's checkpoint, in the form they wrote it: a bare decorator
    takes it through functools.partial (``@jax.checkpoint(policy=...)`` would raise a TypeError)."""
    written = written_form.at_line(source, first.line)
    if written is not None and written.kind == written_form.BARE and not written.equinox:
        return f"Try: {written_form.argument_advice(source, written, 'policy', spelled(rules))}{labels}."
    return f"Try: policy={spelled(rules)} on that jax.checkpoint{labels}."


_WHERE = {"pinned_host": "the host"}  # an offloading policy's destination, in words


def _offload_lists(mine: tuple, required: tuple) -> str:
    """How the learner's names-offloading policy lists the names against the required one's, where
    both offload by name between the same memories: "your policy offloads `k` and `v`, which ..."
    ("" where the policies differ otherwise)."""
    kind = policy_names.OFFLOAD_NAMES
    if mine[0] != kind or required[0] != kind or mine[3:] != required[3:] or mine == required:
        return ""
    (saved, offloaded), (keep, move) = (set(mine[1]), set(mine[2])), (set(required[1]), set(required[2]))
    wrong = [
        (offloaded & keep, "offloads {}, which the required policy keeps on the device"),
        (saved & move, "keeps {} on the device, which it offloads to " + _WHERE.get(required[4], repr(required[4]))),
        ((saved | offloaded) - keep - move, "lists {}, which it neither keeps nor offloads"),
        ((keep | move) - saved - offloaded, "leaves out {}, which it keeps or offloads"),
    ]
    said = [words.format(_names(names)) for names, words in wrong if names]
    return ", and ".join(said)


def _names(names: set[str]) -> str:
    return listed([f"`{n}`" for n in sorted(names)])


def _offload_line(source: Source) -> int | None:
    """The line that writes the learner's save_and_offload_only_these_names (its lists are there)."""
    return next((n for n, text in enumerate(source.lines, 1) if policy_names.OFFLOAD_NAMES in text.split("#")[0]), None)


def _halves_apart(used, required: tuple) -> str:
    """The two policies a save_from_both_policies combines, used by separate checkpoints instead,
    as the learner's code names them ("" where that is not what the checkpoints do)."""
    if required[0] != "save_from_both_policies" or len(used) < 2:
        return ""
    mine = {policy_names.from_wire(c.policy) for c in used}
    if mine != set(required[1]):
        return ""
    in_order = dict.fromkeys(policy_names.render(policy_names.from_wire(c.policy)) for c in used)  # as written
    return " and ".join(in_order)


# What a policy keeps that the checkpoint would otherwise rebuild, by the policy's name.
_KEEPS = {
    "everything_saveable": "which keeps every value computed inside between the passes, so the backward pass "
    "rebuilds none of them",
    "dots_saveable": "which keeps the results of the matrix products inside between the passes instead of "
    "rebuilding them",
    "dots_with_no_batch_dims_saveable": "which keeps the results of the matrix products inside without a batch "
    "dimension between the passes instead of rebuilding them",
}


def policy_keeps(found: Structure, rows, source: Source, reference: Structure) -> Cause | None:
    """A peak over the budget because of the policy the learner chose: their checkpoint's policy
    keeps values (``Residual.kept_by``) where the reference's checkpoints use another policy, which
    the advice names (no policy at all where the reference keeps nothing but the inputs)."""
    theirs = {policy_names.from_wire(c.policy) for c in reference.checkpoints if c.on_path is not False}
    mine = found.checkpoints
    kept = [
        r
        for r in rows
        if r.policy_saved
        and r.kept_by is not None
        and r.kept_by < len(mine)
        and mine[r.kept_by].on_path is not False
        and policy_names.from_wire(mine[r.kept_by].policy) not in theirs
    ]
    if not kept or len(theirs) != 1:
        return None
    keeper = mine[kept[0].kept_by]
    policy = policy_names.from_wire(keeper.policy)
    sizes: dict = {}
    for r in kept:
        if mine[r.kept_by].policy == keeper.policy and r.kind == "primitive" and r.expr:
            sizes[(r.expr, r.line)] = sizes.get((r.expr, r.line), 0) + r.bytes
    largest = sorted(sizes.items(), key=lambda item: (-item[1], item[0][1] or 0, item[0][0]))[:2]
    named = " and ".join(f"`{expr}`{at(line)}" for (expr, line), _ in largest)
    written, lines = _policy_written(source, keeper)
    keeps = _KEEPS.get(policy[0], "which keeps values between the passes that the checkpoint would otherwise rebuild")
    if largest:
        keeps += f"; the largest {'is' if len(largest) == 1 else 'are'} {named}"
    where = f" (line {lines[0]})" if len(lines) == 1 else f" (lines {', '.join(map(str, lines[:-1]))} and {lines[-1]})"
    whose = f"your jax.checkpoint{where} uses" if len(lines) < 2 else f"your checkpoints{where} use"
    (required,) = theirs
    if required == policy_names.plain("nothing_saveable"):
        advice = (
            f"Try: remove {written}{where} and keep the checkpoint{'s' if len(lines) > 1 else ''} "
            f"{'themselves' if len(lines) > 1 else 'itself'}, so that {'each' if len(lines) > 1 else 'it'} keeps only "
            f"its input between the passes "
            f"and the backward pass rebuilds the rest, one checkpoint at a time."
        )
    else:
        advice = (
            f"Try: policy=jax.checkpoint_policies.{policy_names.render(required)} in place of {written}{where}, so "
            f"that each checkpoint keeps less between the passes and rebuilds the rest."
        )
    return Cause(COST, f"{OVER}{whose} {keeper.policy_text}, {keeps}.", advice)


def _policy_written(source: Source, keeper) -> tuple[str, list[int]]:
    """The policy keyword as the learner wrote it (``policy=jax.checkpoint_policies.dots_saveable``),
    and the lines that write it; else the policy by its name, at the checkpoint's line."""
    name = re.escape(keeper.policy_text.split("(")[0].split(".")[-1])
    written, lines = None, []
    for number, text in enumerate(source.lines, 1):
        found = re.search(rf"policy\s*=\s*([\w.]*\b{name}\b(\([^)]*\))?)", text.split("#")[0])
        if found:
            written = written or f"policy={found.group(1)}"
            lines.append(number)
    if written is None:
        return f"policy={keeper.policy_text}", [keeper.line] if keeper.line else []
    return written, lines
