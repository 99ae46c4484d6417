"""The first causes: a program with no jax.checkpoint where this problem requires one, and a
hand-written derivative rule (``custom_vjp``/``custom_jvp``) in place of the checkpoint's policy;
with what to try, in the form the problem's checkpoint is written (``Form``) and, where the
reference's checkpoints sit in a loop or leave the last stage out, where to put it.
"""

from __future__ import annotations

import ast

from ..data.evidence import Structure
from ..grading.rules import NO_HAND_WRITTEN_DERIVATIVE
from ..packages.package import StructureRules
from ..source import Source
from .loops import loop_turn_advice, scan_step_advice
from .shared import HAND_WRITTEN, NO_CHECKPOINT, PLAIN, Cause, Form, at, policy_keyword, required_words


def no_checkpoint_cause(
    found: Structure, rules: StructureRules, reference: Structure, said, source: Source, form: Form
) -> Cause | None:
    """No jax.checkpoint where this problem requires one, or a hand-written ``custom_vjp``/``custom_jvp``
    that decides what is kept where a checkpoint's policy should: the first causes there are."""
    required = required_words(rules)
    use = f"{form.call} with {required}" if required else form.call
    hand_written = found.backward_rules and not rules.allow_custom_vjp
    if not found.checkpoints and hand_written:
        kind = found.backward_rules[0].kind
        return Cause(
            NO_CHECKPOINT,
            f"Your program has no jax.checkpoint: your hand-written {kind}"
            f"{at(_custom_line(found, source))} defines its own backward pass where this "
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
            scan_step_advice(rules, reference, source)
            or loop_turn_advice(rules, reference, source)
            or _early_part_advice(rules, reference)
            or no_checkpoint_advice(rules, form),
        )
    if hand_written:
        kind = found.backward_rules[0].kind
        return Cause(
            HAND_WRITTEN,
            f"Your hand-written {kind}{at(_custom_line(found, source))} defines its own "
            f"backward pass where this problem requires {use}: what it keeps is your "
            f"choice, not the policy's.",
            f"Try: remove the {kind} and wrap the plain function in {use}; JAX then derives "
            f"the backward pass and the policy decides what it saves.",
        )
    return None


def no_checkpoint_advice(rules: StructureRules, form: Form = PLAIN) -> str:
    """What to try when the program has no checkpoint: the form the problem requires, with its
    policy only where it names one (a bare-checkpoint problem's statement asks for none)."""
    policy = policy_keyword(rules)
    if rules.min_depth:  # one checkpoint, however placed, is one level deep
        return (
            f"Try: checkpoints inside checkpoints ({rules.min_depth + 1} levels at least): wrap the computation in "
            f"jax.checkpoint(...{policy}), and inside the function it wraps, checkpoint its parts again (a chain: "
            f"its two halves, and the halves of those), so that the backward pass rebuilds a part of a part at a time."
        )
    if rules.min_checkpoints is not None and rules.min_checkpoints > 1:  # one around all of it would not do
        return (
            f"Try: a jax.checkpoint(...{policy}) around each part of the computation (each layer, say: at least "
            f"{rules.min_checkpoints}), not one around all of it."
        )
    if form.static:  # checkpointing the whole function, the flag would be traced: an `if` on it would fail
        positions = ", ".join(str(i) for i, _ in form.static)
        names = " and ".join(f"`{name}`" for _, name in form.static)
        return (
            f"Try: wrap the computation in {form.call}(...{policy}); {names} "
            f"{'are plain Python values' if len(form.static) > 1 else 'is a plain Python value'}: checkpointing "
            f"the whole function, pass static_argnums=({positions},), or checkpoint an inner function that "
            f"reads {'them' if len(form.static) > 1 else 'it'} from outside."
        )
    return f"Try: wrap the computation in {form.call}(...{policy})."


def _early_part_advice(rules: StructureRules, reference: Structure) -> str | None:
    """Where the reference leaves its last matrix products outside its checkpoints: one checkpoint
    around the whole computation would save no memory (the backward pass would rebuild all of it
    first), so the advice names the early part."""
    if rules.min_depth or (rules.min_checkpoints or 0) > 1 or not reference.checkpoints:
        return None
    dots = [op for op in reference.on_path if op.primitive == "dot_general"]
    if not dots or dots[-1].checkpoints or not any(op.checkpoints for op in dots):
        return None
    policy = policy_keyword(rules)
    return (
        f"Try: checkpoint the early part of the computation: wrap its first stages in jax.checkpoint(...{policy}) "
        f"and leave the last stage outside, whose values the backward pass needs first (a checkpoint around "
        f"all of it would rebuild everything at once and save no memory)."
    )


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
