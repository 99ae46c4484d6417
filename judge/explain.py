"""A policy_violation explained: the structural cause first, in one sentence, then one thing to try.

The rules (``judge.rules``) decide the verdict; this module only words it, in this precedence:
no ``jax.checkpoint`` in the traced program; a hand-written ``custom_vjp``/``custom_jvp`` where a
checkpoint is required; the policy used against the one required, as the learner wrote it;
which of the learner's lines run outside the checkpoint; another structure rule; then the
residual difference in bytes. The residual rows follow the cause, grouped by the expression of
the learner's code that made them (``judge.learner_terms``): the operations of a derivative rule
are never named on their own.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from . import policy_names
from .evidence import ResidualRow, Structure
from .learner_terms import Source
from .package import StructureRules
from .rules import (
    ENCLOSES,
    HAS_CHECKPOINT,
    MAX_CHECKPOINTS,
    MIN_CHECKPOINTS,
    MIN_DEPTH,
    NO_HAND_WRITTEN_DERIVATIVE,
    USES_POLICY,
    StructureCheck,
    policy_as_written,
)

NO_CHECKPOINT, HAND_WRITTEN, POLICY, OUTSIDE, STRUCTURE, BYTES, COST = (
    "no_checkpoint",
    "hand_written",
    "policy",
    "outside",
    "structure",
    "bytes",
    "cost",
)
# Which structure checks (``rules.STRUCTURE_CHECKS``) a cause of each kind already says: no
# checkpoint at all also says that there are fewer than required.
_SAYS = {
    NO_CHECKPOINT: (HAS_CHECKPOINT, MIN_CHECKPOINTS),
    HAND_WRITTEN: (NO_HAND_WRITTEN_DERIVATIVE,),
    POLICY: (USES_POLICY,),
    OUTSIDE: (ENCLOSES,),
}


@dataclass(frozen=True)
class Cause:
    kind: str  # one of the kinds above
    sentence: str  # one sentence, ending with a full stop
    advice: str  # one "what to try" sentence
    covers: tuple[str, ...] = ()  # the rules' problems it says (not repeated after it)
    # Its figures, after the sentence: they may differ between remat implementations (what JAX
    # keeps is its own choice) where the cause does not.
    detail: str = ""


def required_words(rules: StructureRules) -> str:
    return f"policy={policy_names.render(rules.policy)}" if rules.policy is not None else ""


def no_checkpoint_advice(rules: StructureRules) -> str:
    """What to try when the program has no checkpoint: the form the problem requires, with its
    policy only where it names one (a bare-checkpoint problem's statement asks for none)."""
    return (
        "Try: wrap the computation in jax.checkpoint(..."
        + (f", policy={_spelled(rules)}" if rules.policy is not None else "")
        + ")."
    )


def _at(line) -> str:
    return f" (line {line})" if line else ""


def _spelled(rules: StructureRules) -> str:
    """The required policy as the learner would write it in their code."""
    text = policy_names.render(rules.policy)
    return f"jax.checkpoint_policies.{text}"


def _custom_line(found: Structure, source: Source) -> int | None:
    """Where the hand-written derivative is: the traced line, else its decorator or call in the source."""
    kinds = {d.kind for d in found.backward_rules}
    for d in found.backward_rules:
        if d.line:
            return d.line
    if source.tree is None:
        return None
    for node in ast.walk(source.tree):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if name in kinds or (name in ("custom_vjp", "custom_jvp") and isinstance(node, (ast.Attribute, ast.Name))):
            return node.lineno
    return None


def cause(
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
) -> Cause | None:
    """The first structural cause there is, with what to try; None when nothing differs.

    ``said``: the structure rules' problems, by the name of the check that found each; ``cost``:
    the cost rules' (the last cause: what a gradient step costs follows from its structure).
    """
    found_cause = _first_cause(found, rules, reference, said, rows, missing, mine_bytes, their_bytes, source, keepers)
    if found_cause is None and cost:
        found_cause = _cost_cause(cost[0], found, source)
    if found_cause is None:
        return None
    covers = [p for check, p in said if check in _SAYS.get(found_cause.kind, ())]
    if found_cause.kind == POLICY:
        covers += keepers
    if found.checkpoints and _equinox_only(source):  # their checkpoint by the name they wrote
        found_cause = replace(
            found_cause,
            sentence=_JAX_CHECKPOINT.sub("eqx.filter_checkpoint", found_cause.sentence),
            advice=_JAX_CHECKPOINT.sub("eqx.filter_checkpoint", found_cause.advice),
        )
    return replace(found_cause, covers=tuple(covers) + found_cause.covers)


_JAX_CHECKPOINT = re.compile(r"\bjax\.checkpoint\b(?!_)")


def _equinox_only(source: Source) -> bool:
    """The learner checkpoints with Equinox's filter_checkpoint only (no jax.checkpoint or remat)."""
    return "filter_checkpoint" in source.names and not re.search(
        r"\bjax\.(checkpoint|remat)\b(?!_)|\bimport\b[^\n]*\b(checkpoint|remat)\b(?!_)", source.text
    )


def _first_cause(
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
) -> Cause | None:
    required = required_words(rules)
    use = f"jax.checkpoint with {required}" if required else "jax.checkpoint"
    hand_written = found.backward_rules and not rules.allow_custom_vjp
    if not found.checkpoints and hand_written:
        kind = found.backward_rules[0].kind
        return Cause(
            NO_CHECKPOINT,
            f"Your program has no jax.checkpoint: your hand-written {kind}"
            f"{_at(_custom_line(found, source))} defines its own backward pass where this "
            f"problem requires {use}, so what it keeps is your choice, not the policy's.",
            f"Try: remove the {kind} and wrap the plain function in {use}; JAX then derives "
            f"the backward pass and the policy decides what it saves.",
            tuple(p for check, p in said if check is NO_HAND_WRITTEN_DERIVATIVE),
        )
    if not found.checkpoints and (rules.policy is not None or reference.checkpoints or rules.min_checkpoints):
        return Cause(
            NO_CHECKPOINT,
            f"Your program has no jax.checkpoint, so reverse mode saves every "
            f"intermediate value its backward pass needs; this problem requires {use}.",
            no_checkpoint_advice(rules),
        )
    if hand_written:
        kind = found.backward_rules[0].kind
        return Cause(
            HAND_WRITTEN,
            f"Your hand-written {kind}{_at(_custom_line(found, source))} defines its own "
            f"backward pass where this problem requires {use}: what it keeps is your "
            f"choice, not the policy's.",
            f"Try: remove the {kind} and wrap the plain function in {use}; JAX then derives "
            f"the backward pass and the policy decides what it saves.",
        )
    same_values = not missing and not any(r.offending for r in rows)
    policy = _policy_cause(found, rules, said, keepers, source, same_values)
    if policy is not None:
        return policy
    unrolled = _python_loop(found, reference, source, said)
    if unrolled is not None:
        return unrolled
    outside = _outside(found, rules, rows, source)
    if outside is not None:
        return outside
    for check, problem in said:
        if check is ENCLOSES and "`jnp.arange`" in problem and source.numpy_calls("arange"):
            return _numpy_table(source, problem)
        if check not in (HAS_CHECKPOINT, NO_HAND_WRITTEN_DERIVATIVE, USES_POLICY):
            return Cause(STRUCTURE, problem[0].upper() + problem[1:] + ".", _structure_advice(check), (problem,))
    if any(r.offending for r in rows) or missing:
        return _bytes_cause(rules, rows, missing, mine_bytes, their_bytes)
    return None


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


def _policy_cause(
    found: Structure, rules: StructureRules, said, keepers: list[str], source: Source, same_values: bool = False
) -> Cause | None:
    if rules.policy is None:
        return None
    required = policy_names.render(rules.policy)
    if any(check is USES_POLICY for check, _ in said):
        idle = [c for c in found.checkpoints if c.on_path is False and policy_names.from_wire(c.policy) == rules.policy]
        if idle:
            return Cause(
                POLICY,
                f"Your jax.checkpoint with policy={required}{_at(idle[0].line)} is not on the path "
                f"from your inputs to the output, so it changes nothing in your gradient.",
                "Try: call the checkpointed function on your inputs and return what it computes.",
            )
        used = [c for c in found.checkpoints if c.on_path is not False] or found.checkpoints
        first = used[0]
        why = _WHY_THE_POLICY.get(
            (policy_names.render(policy_names.from_wire(first.policy)), required, same_values), ""
        )
        return Cause(
            POLICY,
            f"Your jax.checkpoint{_at(first.line)} uses {policy_as_written(first, source.names)}, where this "
            f"problem requires {required}.{why}",
            f"Try: policy={_spelled(rules)} on that jax.checkpoint.",
        )
    if keepers:
        return Cause(
            POLICY,
            f"In your program, {keepers[0]}.",
            f"Try: only one jax.checkpoint, with policy={_spelled(rules)}, around that computation "
            f"(a checkpoint nested in it with another policy decides for the values it makes).",
        )
    return None


def _python_loop(found: Structure, reference: Structure, source: Source, said) -> Cause | None:
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
        f"Your jax.checkpoint{_at(repeated[0])} runs in a Python loop (line {loop.lineno}, "
        f"`{header}`): Python unrolls the loop into one checkpoint per pass, and what runs "
        f"between them lies outside every checkpoint. This problem runs one checkpointed step "
        f"under jax.lax.scan.",
        "Try: replace the Python loop with jax.lax.scan over the stacked layers, with the checkpointed "
        "function as the step it runs (the step returns the new carry and None).",
        tuple(p for check, p in said if check in (MAX_CHECKPOINTS, MIN_CHECKPOINTS)),
    )


def _numpy_table(source: Source, problem: str) -> Cause:
    """A table built with NumPy is a constant of the traced program, wherever the line sits: the
    checkpoint has nothing to rebuild, and the backward pass keeps the whole table."""
    line = source.numpy_calls("arange")[0]
    return Cause(
        STRUCTURE,
        f"Your table is built with NumPy at line {line} (`{source.line(line)}`): NumPy runs "
        f"while JAX traces, so the table becomes a constant baked into the program, and the "
        f"backward pass keeps all of it instead of rebuilding it inside your jax.checkpoint.",
        "Try: build the table with jax.numpy (jnp.arange, jnp.where) inside the function you checkpoint, "
        "so that it is computed from its shape and recomputed in the backward pass.",
        (problem,),
    )


def _outside(found: Structure, rules: StructureRules, rows: list[ResidualRow], source: Source) -> Cause | None:
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
            if r.offending and r.kind == "primitive" and r.kept_by is None and r.line and r.line not in inside
        }
    )
    if not lines:
        return None
    shown = lines[:3]
    checkpoint = found.checkpoints[wanted[0]]
    written = "; ".join(f"line {n} (`{source.line(n)}`)" if source.line(n) else f"line {n}" for n in shown)
    more = f" and {len(lines) - len(shown)} more" if len(lines) > len(shown) else ""
    verb = "runs" if len(lines) == 1 else "run"
    return Cause(
        OUTSIDE,
        f"Part of the computation lies outside your jax.checkpoint{_at(checkpoint.line)}: "
        f"{written}{more} {verb} before or after it, so reverse mode saves what "
        f"{'it makes' if len(lines) == 1 else 'they make'} as if there were no checkpoint.",
        f"Try: move {'that line' if len(lines) == 1 else 'those lines'} into the function you checkpoint.",
    )


_STRUCTURE_ADVICE = {
    MIN_CHECKPOINTS: "Try: one jax.checkpoint per part of the computation the problem names.",
    MAX_CHECKPOINTS: "Try: fewer jax.checkpoint calls, each around a larger part of the computation.",
    MIN_DEPTH: "Try: a jax.checkpoint inside the function another jax.checkpoint wraps.",
    ENCLOSES: "Try: move the whole computation into the function you checkpoint.",
}


def _structure_advice(check: StructureCheck) -> str:
    return _STRUCTURE_ADVICE.get(check, "Try: the change the sentence above names.")


def _cost_cause(problem: str, found: Structure, source: Source) -> Cause:
    detail = problem[0].upper() + problem[1:] + "."
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
    if "FLOPs" in problem:
        nested = [c for c in found.checkpoints if c.on_path is not False and c.depth >= 1]
        if nested:  # each level of checkpoints recomputes what it encloses once more
            return Cause(
                COST,
                f"Your gradient step recomputes more than this problem allows: your jax.checkpoint"
                f"{_at(nested[0].line)} sits inside another one, so the backward pass recomputes its "
                f"part twice, once for each level.",
                "Try: keep one level of checkpoints: remove the inner jax.checkpoint (or the outer one), so "
                "that each value is recomputed at most once.",
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


def _bytes_cause(rules: StructureRules, rows, missing, mine: int, theirs: int) -> Cause:
    who = (
        f"the required policy ({policy_names.render(rules.policy)})"
        if rules.policy is not None
        else "the reference solution"
    )
    if mine > theirs:
        sentence = f"Your code saves more for the backward pass than {who}."
    elif mine < theirs:
        sentence = f"Your code saves less for the backward pass than {who}, and recomputes more."
    else:
        sentence = f"Your code saves other values for the backward pass than {who}, of the same total size."
    detail = f"It saves {mine} bytes of residuals where {who} saves {theirs}."
    found = _bytes_advice(who, rows, missing, mine, theirs)
    return Cause(BYTES, sentence, found, detail=detail)


def _bytes_advice(who: str, rows, missing, mine: int, theirs: int) -> str:
    extra = sorted((r for r in rows if r.offending), key=lambda r: -r.bytes)
    if extra and (mine >= theirs or not missing):
        if extra[0].kind == "argument":
            return (
                f"Try: change your code so that its backward pass no longer needs the argument "
                f"{extra[0].what} (the reference's does not read it)."
            )
        return f"Try: let {_named(extra[0])} be recomputed in the backward pass instead of saved."
    wanted = sorted(missing, key=lambda r: -r.bytes)
    if wanted:
        return f"Try: keep {_named(wanted[0])} for the backward pass, as {who} does."
    return "Try: compare your rows with the policy's in the residual table."


# A value made by no line of the learner's (the reference's, or one JAX makes), by what made it.
_MADE_BY = {"dot_general": "the result of a matrix product", "scan carry": "the scan's carry at every step"}


def _named(row: ResidualRow) -> str:
    if row.kind == "primitive":
        made_by = _MADE_BY.get(row.op or row.what)
        if row.expr:
            text = f"`{row.expr}`"
        elif made_by:
            text = f"{made_by} ({row.type})"
        else:
            text = f"the value of {row.op}" if row.op else f"the {row.type} value"
        return text + (f" (line {row.line})" if row.line else "")
    if row.kind == "named":
        return f"the value named '{row.what}'"
    if row.kind == "argument":
        return f"the argument {row.what}"
    return f"the {row.type} {row.kind}"


# ---------------------------------------------------------------------------- the residual rows, grouped


@dataclass
class Group:
    """The residuals one expression of the learner's code made (a derivative rule's several)."""

    rows: list[ResidualRow]
    missing: bool

    @property
    def bytes(self) -> int:
        return sum(r.bytes for r in self.rows)

    def phrase(self) -> str:
        first = max(self.rows, key=lambda r: r.bytes)
        text = first.phrase()
        if len(self.rows) > 1:
            text += f" (with {len(self.rows) - 1} more value(s) it makes: {self.bytes} bytes in all)"
        return text


def groups(rows: list[ResidualRow], missing: list[ResidualRow]) -> list[Group]:
    """Offending rows, one group per expression of the learner's code, biggest first; then the missing ones."""
    found: list[Group] = []
    for is_missing, items in ((False, [r for r in rows if r.offending]), (True, missing)):
        by_key: dict = {}
        for r in items:
            key = (r.expression(), r.reason) if r.expression() else id(r)
            by_key.setdefault(key, []).append(r)
        found += sorted((Group(g, is_missing) for g in by_key.values()), key=lambda g: -g.bytes)
    return found


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
