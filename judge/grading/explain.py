"""A policy_violation explained: the structural cause first, in one sentence, then one thing to try.

The rules (``judge.grading.rules``) decide the verdict; this module only words it, in this precedence:
no ``jax.checkpoint`` in the traced program; a hand-written ``custom_vjp``/``custom_jvp`` where a
checkpoint is required; the policy used against the one required, as the learner wrote it;
which of the learner's lines run outside the checkpoint; another structure rule; then the
residual difference in bytes. The residual rows follow the cause, grouped by the expression of
the learner's code that made them (``judge.grading.learner_terms``): the operations of a derivative rule
are never named on their own.
"""

from __future__ import annotations

import ast
import difflib
import math
import re
from dataclasses import dataclass, replace

from ..data import policy_names
from ..data.evidence import ResidualRow, Structure
from ..packages.package import Problem, StructureRules
from . import explore_loops, written_form
from .learner_terms import Source
from .rules import (
    ENCLOSES,
    HAS_CHECKPOINT,
    MAX_CHECKPOINTS,
    MIN_CHECKPOINTS,
    MIN_DEPTH,
    NO_HAND_WRITTEN_DERIVATIVE,
    USES_POLICY,
    Overrun,
    StructureCheck,
    policy_as_written,
)

NO_CHECKPOINT, HAND_WRITTEN, POLICY, OUTSIDE, STRUCTURE, NAMES, BYTES, COST = (
    "no_checkpoint",
    "hand_written",
    "policy",
    "outside",
    "structure",
    "names",
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


@dataclass(frozen=True)
class Form:
    """How a checkpoint of this problem's function is written, for the advice to a program with
    none: the call its reference uses (Equinox's, where the model holds functions that
    jax.checkpoint refuses), and its arguments that are plain Python values ((position, name)),
    which a checkpoint of the whole function must be told of (static_argnums)."""

    call: str = "jax.checkpoint"
    static: tuple[tuple[int, str], ...] = ()


PLAIN = Form()  # a function checkpointed by jax.checkpoint, with no static arguments


def form_of(problem: Problem) -> Form:
    """From the author's reference and arguments, never the learner's code."""
    equinox = "filter_checkpoint" in problem.reference and not _JAX_CHECKPOINT.search(problem.reference)
    return Form(
        call="eqx.filter_checkpoint" if equinox else "jax.checkpoint",
        static=tuple((i, arg.name) for i, arg in enumerate(problem.args) if arg.static),
    )


def no_checkpoint_advice(rules: StructureRules, form: Form = PLAIN) -> str:
    """What to try when the program has no checkpoint: the form the problem requires, with its
    policy only where it names one (a bare-checkpoint problem's statement asks for none)."""
    policy = _policy_keyword(rules)
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


def _scan_step_advice(rules: StructureRules, reference: Structure, source: Source) -> str | None:
    """Where the reference checkpoints the step of a scan and the learner's code scans a function
    of its own: wrapping the whole computation would rerun every step at once (and the peak with
    it), so the advice names that step (with eqx.filter_checkpoint in Equinox code, whose steps hold functions)."""
    steps = source.scan_steps()
    if not steps or not any(c.in_loop for c in reference.checkpoints):
        return None
    step, line = steps[0]
    # Equinox code checkpoints with eqx.filter_checkpoint, which passes what is not an array through
    checkpoint = "eqx.filter_checkpoint" if "equinox" in source.text else "jax.checkpoint"
    policy = _policy_keyword(rules)
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


def _loop_turn_advice(rules: StructureRules, reference: Structure, source: Source) -> str | None:
    """Where the reference checkpoints several parts side by side (a Python loop's turns, unrolled
    in its trace) and the learner's code loops over its layers with no checkpoint: one checkpoint
    around all of it would rebuild every turn at once (and peak as high as none), so the advice
    names the loop, and how many turns each checkpoint takes: the reference's matrix products per
    checkpoint over those of one turn. Not where checkpoints must nest (``no_checkpoint_advice``)."""
    looped = [c for c in reference.checkpoints if c.depth == 0]
    if len(looped) < 2 or rules.min_depth or source.tree is None or source.scan_steps() or "equinox" in source.text:
        return None
    loop = explore_loops.find(source.text, "")
    if loop is None:
        return None
    functions = {n.name: n for n in source.tree.body if isinstance(n, ast.FunctionDef)}
    per_turn = sum(_matmuls(statement, functions) for statement in loop.node.body)
    per_checkpoint = min(c.encloses.get("dot_general", 0) for c in looped)
    turns = round(per_checkpoint / per_turn) if per_turn and per_checkpoint else 1
    policy = _policy_keyword(rules)
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


def _early_part_advice(rules: StructureRules, reference: Structure) -> str | None:
    """Where the reference leaves its last matrix products outside its checkpoints: one checkpoint
    around the whole computation would save no memory (the backward pass would rebuild all of it
    first), so the advice names the early part."""
    if rules.min_depth or (rules.min_checkpoints or 0) > 1 or not reference.checkpoints:
        return None
    dots = [op for op in reference.on_path if op.primitive == "dot_general"]
    if not dots or dots[-1].checkpoints or not any(op.checkpoints for op in dots):
        return None
    policy = _policy_keyword(rules)
    return (
        f"Try: checkpoint the early part of the computation: wrap its first stages in jax.checkpoint(...{policy}) "
        f"and leave the last stage outside, whose values the backward pass needs first (a checkpoint around "
        f"all of it would rebuild everything at once and save no memory)."
    )


def _at(line) -> str:
    return f" (line {line})" if line else ""


def _spelled(rules: StructureRules) -> str:
    """The required policy as the learner would write it in their code."""
    text = policy_names.render(rules.policy)
    return f"jax.checkpoint_policies.{text}"


def _policy_keyword(rules: StructureRules) -> str:
    """ ", policy=..." as the learner would add it to a checkpoint call, where the problem requires one."""
    return f", policy={_spelled(rules)}" if rules.policy is not None else ""


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
    form: Form = PLAIN,
) -> Cause | None:
    """The first structural cause there is, with what to try; None when nothing differs.

    ``said``: the structure rules' problems, by the name of the check that found each; ``cost``:
    the cost rules' (the last cause: what a gradient step costs follows from its structure).
    """
    found_cause = _first_cause(
        found, rules, reference, said, rows, missing, mine_bytes, their_bytes, source, keepers, form
    )
    if found_cause is None and cost:
        found_cause = _figured(_cost_cause(cost[0], found, source, reference, rows), cost[0])
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
    form: Form,
) -> Cause | None:
    required = required_words(rules)
    use = f"{form.call} with {required}" if required else form.call
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
            _scan_step_advice(rules, reference, source)
            or _loop_turn_advice(rules, reference, source)
            or _early_part_advice(rules, reference)
            or no_checkpoint_advice(rules, form),
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
    around = _around_the_loop(found, rules, reference, source)
    if around is not None:
        return around
    same_values = not missing and not any(r.offending for r in rows)
    policy = _policy_cause(found, rules, said, keepers, source, same_values, reference)
    if policy is not None:
        return policy
    unrolled = _python_loop(found, reference, source, said)
    if unrolled is not None:
        return unrolled
    outside = _outside(found, rules, rows, source, form)
    if outside is not None:
        return outside
    for check, problem in said:
        if check is ENCLOSES and "`jnp.arange`" in problem and source.numpy_calls("arange"):
            return _numpy_table(source, problem)
        if check is ENCLOSES and "`jnp.arange`" in problem:  # a table built outside: an input kept whole
            line = next((n for n, text in enumerate(source.lines, 1) if "arange(" in text), None)
            built = f" at line {line} (`{source.line(line).split('  #')[0]}`)" if line else ""
            return Cause(
                STRUCTURE,
                f"Your table is built outside your jax.checkpoint{built}, so the checkpoint receives it as a "
                f"finished value and the backward pass keeps all of it, where building it inside lets the "
                f"backward pass rebuild it from its shape.",
                "Try: build the table inside the function you checkpoint (its jnp.arange and what follows), "
                "from the shape of an input, rather than passing it in or closing over it.",
                (problem,),
            )
        if check is ENCLOSES and "matrix product" in problem:
            left_out = _left_out(found, rules, source, problem)
            if left_out is not None:
                return left_out
        if check not in (HAS_CHECKPOINT, NO_HAND_WRITTEN_DERIVATIVE, USES_POLICY):
            advice = _depth_advice(source) if check is MIN_DEPTH else _structure_advice(check)
            if check is MIN_CHECKPOINTS:  # one checkpoint around a loop whose turns the reference checkpoints
                advice = _turns_instead(found, rules, reference, source) or advice
            return Cause(STRUCTURE, problem[0].upper() + problem[1:] + ".", advice, (problem,))
    if any(r.offending for r in rows) or missing:
        return _names_cause(found, rules, rows, missing, source) or _bytes_cause(
            rules, rows, missing, mine_bytes, their_bytes, found, source
        )
    return None


def _around_the_loop(found: Structure, rules: StructureRules, reference: Structure, source: Source) -> Cause | None:
    """A checkpoint around the whole ``scan`` where the reference checkpoints the step it runs: its
    policy is not the matter (the right one there still fails), the place is."""
    on_path = [c for c in found.checkpoints if c.on_path is not False]
    lines = [c.line for c in on_path]
    if (
        not on_path
        or rules.min_depth  # a nesting problem: the depth is told first (a structure rule)
        or not any(c.in_loop for c in reference.checkpoints)
        or any(c.in_loop for c in on_path)
        or len(set(lines)) < len(lines)  # a Python loop's checkpoints (``_python_loop``)
        or "scan" not in source.names
    ):
        return None
    policy = _policy_keyword(rules)
    steps = [step for step, _ in source.scan_steps() if step.isidentifier()]
    step = steps[0] if len(steps) == 1 else "step"  # the learner's step by its name, where there is one
    return Cause(
        STRUCTURE,
        f"Your jax.checkpoint{_at(on_path[0].line)} wraps the whole jax.lax.scan, not the step it runs: the "
        f"backward pass then reruns the whole loop at once and holds what it recomputes for all of its steps "
        f"together, where a checkpointed step is rerun one step at a time.",
        f"Try: checkpoint the step function and give that to scan, as jax.lax.scan(jax.checkpoint({step}{policy}), "
        f"...), with no checkpoint around the scan itself.",
    )


def _names_cause(found: Structure, rules: StructureRules, rows, missing, source: Source) -> Cause | None:
    """A value chosen by its label (``checkpoint_name``): the label thrown away, never written, on
    another value, or a policy that picks the wrong labels; None where no label is the matter."""
    written = source.labels()
    extra = sorted((r for r in rows if r.offending and r.kind == "named"), key=lambda r: -r.bytes)
    wanted = sorted((r for r in missing if r.kind == "named"), key=lambda r: -r.bytes)
    for row in wanted:
        mine = [w for w in written if w[0] == row.what]
        if mine and all(dropped for _, _, dropped, _ in mine):
            _, line, _, value = mine[0]
            target = value if value.isidentifier() else "labelled"
            return Cause(
                NAMES,
                f"Your checkpoint_name at line {line} (`{source.line(line).split('  #')[0]}`) labels a value your code never "
                f"uses: checkpoint_name returns a new value that carries the name '{row.what}', and your code "
                f"throws it away and goes on with the unlabelled `{value}`, so nothing is named '{row.what}' "
                f"and the policy has nothing to keep by that name.",
                f'Try: use what checkpoint_name returns: {target} = checkpoint_name({value}, "{row.what}") at '
                f"line {line}.",
            )
        if not mine:
            return Cause(
                NAMES,
                f"Your code names no value '{row.what}': the required checkpointing keeps the value labelled "
                f"'{row.what}', and no checkpoint_name in your program gives that label.",
                f'Try: label the value where your code makes it, as h = checkpoint_name(..., "{row.what}"), and '
                f"use h afterwards.",
            )
    both = [r for r in extra if r.what in {w.what for w in wanted}]
    if both:
        row = both[0]
        value = next((v for label, _, _, v in written if label == row.what), "")
        on = f" is on `{value}`" if value else ""
        return Cause(
            NAMES,
            f"Your label '{row.what}'{_at(row.line)}{on}, another value than the one this problem keeps under "
            f"that name: the policy saves the value you labelled and recomputes the one it should keep.",
            f"Try: put checkpoint_name(..., \"{row.what}\") on the value the statement names '{row.what}', and use "
            f"what it returns.",
        )
    used = [c for c in found.checkpoints if c.on_path is not False]
    if not used or not (extra or wanted or missing):
        return None
    first = used[0]
    policy = policy_as_written(first, source.names)
    rendered = policy_names.render(policy_names.from_wire(first.policy))
    dropped_names = [r.what for r in extra]
    kept = {r.what for r in rows if r.kind == "named" and not r.offending} | {r.what for r in wanted}
    left_out = dropped_names or sorted({label for label, _, _, _ in written} - kept)
    own = (
        "Try: write the policy yourself: a function (prim, *args, **params) that returns False when "
        "prim.name == 'name' and params['name'] is "
        + " or ".join(f"'{n}'" for n in left_out)
        + ", and True for every other value."
        if left_out and rules.policy is None
        else ""
    )
    if extra and wanted:
        where = next((line for label, line, _, _ in written if label == wanted[0].what), None)
        mend = (
            f"Try: in your policy{_at(first.policy_line)}, leave out the name '{extra[0].what}' instead of "
            f"'{wanted[0].what}': return False when params['name'] == '{extra[0].what}', True otherwise."
            if policy_names.from_wire(first.policy)[0] == "custom"
            else own or f"Try: change your policy so that it leaves out '{extra[0].what}' and keeps '{wanted[0].what}'."
        )
        return Cause(
            NAMES,
            f"Your jax.checkpoint{_at(first.line)} uses {policy}, which saves the value named "
            f"'{extra[0].what}'{_at(extra[0].line)} and recomputes the one named '{wanted[0].what}'{_at(where)}: "
            f"this problem wants the reverse, '{extra[0].what}' recomputed and '{wanted[0].what}' kept.",
            mend,
        )
    if extra and rendered.startswith("save_anything_except_these_names("):
        return Cause(
            NAMES,
            f"Your jax.checkpoint{_at(first.line)} uses save_anything_except_these_names, and it still saves the value named "
            f"'{extra[0].what}'{_at(extra[0].line)}: in JAX 0.10.2 that library policy ignores the names it "
            f"is given and saves every value, as everything_saveable does.",
            own or f"Try: a policy that leaves out the value named '{extra[0].what}'.",
        )
    if extra:
        return Cause(
            NAMES,
            f"Your jax.checkpoint{_at(first.line)} uses {policy}, which saves the value named "
            f"'{extra[0].what}'{_at(extra[0].line)} too: this problem wants that value recomputed in the "
            f"backward pass.",
            own or f"Try: a policy that leaves out the value named '{extra[0].what}'.",
        )
    names_only = rendered.startswith(("save_any_names_but_these(", "save_only_these_names("))
    unnamed = sorted((r for r in missing if r.kind == "primitive"), key=lambda r: -r.bytes)
    if names_only and unnamed and rules.policy is None:
        but = f" except the one named '{left_out[0]}'" if len(left_out) == 1 else ""
        return Cause(
            NAMES,
            f"Your jax.checkpoint{_at(first.line)} uses {policy}, which keeps only values that carry a "
            f"name, so the others, {_named(unnamed[0])} among them, are recomputed: this problem keeps every "
            f"value{but}.",
            own or "Try: a policy that keeps unnamed values too.",
        )
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


def _only_part(found: Structure, reference: Structure, source: Source) -> str:
    """The learner's lines that run outside every checkpoint an operation the reference runs inside
    one (``line 7 (`...`)``), or "" where the checkpoints cover what the reference's cover."""
    theirs = {op.primitive for op in reference.on_path if not op.checkpoints}
    lines = sorted({op.line for op in found.on_path if not op.checkpoints and op.primitive not in theirs and op.line})
    if not lines:
        return ""
    shown = [f"line {n} (`{source.line(n).split('  #')[0]}`)" for n in lines[:2]]
    return " and ".join(shown) + (" run" if len(lines) > 1 else " runs")


def _policy_cause(
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
                f"Your jax.checkpoint with policy={required}{_at(idle[0].line)} is not on the path "
                f"from your inputs to the output, so it changes nothing in your gradient.",
                "Try: call the checkpointed function on your inputs and return what it computes.",
            )
        used = [c for c in found.checkpoints if c.on_path is not False] or found.checkpoints
        first = used[0]
        part = _only_part(found, reference, source) if reference is not None else ""
        if part:  # a policy alone would not mend a checkpoint around the wrong part
            return Cause(
                POLICY,
                f"Your jax.checkpoint{_at(first.line)} uses {policy_as_written(first, source.names)}, and wraps "
                f"only part of the computation: {part} outside it, where this problem requires one "
                f"jax.checkpoint with policy={required} around the whole computation.",
                f"Try: put the whole computation in one function and checkpoint that: jax.checkpoint(f, "
                f"policy={_spelled(rules)}), with nothing of it outside.",
            )
        halves = _halves_apart(used, rules.policy)
        if halves:
            return Cause(
                POLICY,
                f"Your {len(used)} jax.checkpoints{_and_lines(used)} each use one of the two policies "
                f"this problem combines, {halves}: each part of your code keeps only what its own policy "
                f"saves, where this problem requires one jax.checkpoint whose policy saves what either "
                f"saves, {required}.",
                f"Try: one jax.checkpoint around the whole computation, with policy={_spelled(rules)}, in place "
                f"of your {len(used)}.",
            )
        why = _WHY_THE_POLICY.get(
            (policy_names.render(policy_names.from_wire(first.policy)), required, same_values), ""
        )
        labels = _labels_advice(rules.policy, source)
        return Cause(
            POLICY,
            f"Your jax.checkpoint{_at(first.line)} uses {policy_as_written(first, source.names)}, where this "
            f"problem requires {required}.{why}",
            _policy_advice(first, rules, source, labels),
        )
    if keepers:
        return Cause(
            POLICY,
            f"In your program, {keepers[0]}.",
            f"Try: only one jax.checkpoint, with policy={_spelled(rules)}, around that computation "
            f"(a checkpoint nested in it with another policy decides for the values it makes).",
        )
    return None


def _policy_advice(first, rules: StructureRules, source: Source, labels: str) -> str:
    """The required policy on the learner's checkpoint, in the form they wrote it: a bare decorator
    takes it through functools.partial (``@jax.checkpoint(policy=...)`` would raise a TypeError)."""
    written = written_form.at_line(source.text, first.line)
    if written is not None and written.kind == written_form.BARE and not written.equinox:
        return f"Try: {written_form.argument_advice(source.text, written, 'policy', _spelled(rules))}{labels}."
    return f"Try: policy={_spelled(rules)} on that jax.checkpoint{labels}."


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


def _and_lines(checkpoints) -> str:
    """ " (lines 14 and 16)"; "" where no line is known (decorators are traced at none of the learner's)."""
    lines = [str(c.line) for c in checkpoints if c.line]
    if len(lines) < 2:
        return f" (line {lines[0]})" if lines else ""
    return f" (lines {', '.join(lines[:-1])} and {lines[-1]})"


def _kept_by_name(policy: tuple) -> tuple[str, ...]:
    """The labels a policy keeps values by (save_only_these_names' and an offloading policy's)."""
    if policy[0] == "save_only_these_names":
        return tuple(policy[1])
    if policy[0] == policy_names.OFFLOAD_NAMES:
        return tuple(policy[1]) + tuple(policy[2])
    if policy[0] == "save_from_both_policies":
        return tuple(n for p in sorted(policy[1], key=str) for n in _kept_by_name(p))
    return ()


def _labels_advice(policy: tuple, source: Source) -> str:
    """What the required policy also needs of the learner's labels, after the policy itself (", and
    ..."): a policy that keeps values by name keeps nothing where no value carries that name, so
    writing it alone would not mend a label misspelled, thrown away, or never written."""
    written = source.labels()
    used = {label for label, _, dropped, _ in written if not dropped}
    fixes, unwritten = [], []
    for name in _kept_by_name(policy):
        if name in used:
            continue
        dropped = [(line, value) for label, line, gone, value in written if label == name and gone]
        near = [
            (label, line)
            for label, line, _, _ in written
            if label not in _kept_by_name(policy)
            and difflib.SequenceMatcher(None, label.lower(), name.lower()).ratio() >= 0.75
        ]
        if dropped:
            line, value = dropped[0]
            target = value if value.isidentifier() else "labelled"
            fixes.append(
                f'use what checkpoint_name returns at line {line}: {target} = checkpoint_name({value}, "{name}")'
            )
        elif near:
            label, line = near[0]
            fixes.append(f"rename your label '{label}' (line {line}) to '{name}', the name the statement gives")
        else:
            unwritten.append(name)
    if unwritten:
        names = ", ".join(f"'{n}'" for n in unwritten)
        example = unwritten[0]
        fixes.append(
            f"label the values it keeps, {names}, where your code makes them: {example} = checkpoint_name(..., "
            f'"{example}"), and use what it returns; the policy keeps nothing unlabelled'
        )
    return "".join(f", and {fix}" for fix in fixes)


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
        "Try: write the table's lines with jax.numpy where they stand: jnp.arange, jnp.where and jnp.float32 in "
        "place of np.arange, np.where and np.float32, so that it is computed from its shape and recomputed in the "
        "backward pass."
        if _in_checkpointed_function(source, line)
        else "Try: build the table with jax.numpy (jnp.arange, jnp.where) inside the function you checkpoint, "
        "so that it is computed from its shape and recomputed in the backward pass.",
        (problem,),
    )


def _outer_line(found: Structure, inner, source: Source) -> int | None:
    """The line of the checkpoint ``inner`` is nested in (a decorator's, where it is one: its
    checkpoint is traced at no line of the learner's)."""
    outer = found.checkpoints[inner.parent] if inner.parent is not None else None
    if outer is None:
        return None
    if outer.line and re.search(r"checkpoint|remat", source.line(outer.line)):
        return outer.line
    decorators = list(_checkpoint_decorators(source))
    for function, decorator in decorators if outer.line else ():  # a call of a decorated function
        if re.search(rf"\b{function.name}\(", source.line(outer.line)):
            return decorator.lineno
    checkpointed = _checkpointed_functions(source)
    for function, decorator in decorators:  # the decorated function that checkpoints inside
        inside = [n for statement in function.body for n in ast.walk(statement) if isinstance(n, ast.Call)]
        if any(_CHECKPOINTED.search(ast.unparse(n)) or ast.unparse(n.func) in checkpointed for n in inside):
            return decorator.lineno
    return None


def _checkpoint_decorators(source: Source):
    """(function, decorator) for each decorator of the learner's that checkpoints its function."""
    for n in ast.walk(source.tree) if source.tree is not None else ():
        if isinstance(n, ast.FunctionDef):
            for d in n.decorator_list:
                if re.search(r"checkpoint|remat", ast.unparse(d)):
                    yield n, d


def _checkpointed_functions(source: Source) -> set[str]:
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
    decorated = {function.name for function, _ in _checkpoint_decorators(source)}
    return called | decorated


def _in_checkpointed_function(source: Source, line: int) -> bool:
    """Whether a line lies in a function the learner checkpoints."""
    checkpointed = _checkpointed_functions(source)
    return source.tree is not None and any(
        isinstance(n, ast.FunctionDef) and n.lineno < line <= (n.end_lineno or n.lineno) and n.name in checkpointed
        for n in ast.walk(source.tree)
    )


def _outside(
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
            if r.offending and r.kind == "primitive" and r.kept_by is None and r.line and r.line not in inside
        }
    )
    if not lines:
        return None
    checkpoint = found.checkpoints[wanted[0]]
    for n in lines:  # a function of the learner's called without its checkpoint: the call is what to mend
        plain = source.plain_calls(n)
        if plain is not None and not any(source.loop_around(call) for call in plain[1]):
            name, calls = plain
            policy = _policy_keyword(rules)
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
        f"Part of the computation lies outside your jax.checkpoint{_at(checkpoint.line)}: "
        f"{written}{more} {verb} before or after it, so reverse mode saves what "
        f"{'it makes' if len(lines) == 1 else 'they make'} as if there were no checkpoint.",
        _move_in_advice(lines, checkpoint, source, form, _policy_keyword(rules)),
    )


def _move_in_advice(lines: list[int], checkpoint, source: Source, form: Form, policy: str) -> str:
    """Lines to move into the checkpointed function: into a function of the learner's own (one
    written for it where what they checkpoint is not theirs, a module), passing along a flag those
    lines branch on, which must then be static."""
    them = "that line" if len(lines) == 1 else "those lines"
    written = source.line(checkpoint.line) if checkpoint.line else ""
    wrapped = _CHECKPOINTED.search(written) if "filter_checkpoint" in written else None  # Equinox's: a module
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


# The function a checkpoint call wraps, by its name: jax.checkpoint(f, ...), eqx.filter_checkpoint(f).
_CHECKPOINTED = re.compile(r"(?:checkpoint|remat)\(\s*([A-Za-z_]\w*)\s*[,)]")


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


def _turns_instead(found: Structure, rules: StructureRules, reference: Structure, source: Source) -> str | None:
    """Where one checkpoint wraps a loop whose turns the reference checkpoints one by one: the turn
    advice (``_loop_turn_advice``), and the checkpoint around the whole taken away."""
    turns = _loop_turn_advice(rules, reference, source)
    whole = [c for c in found.checkpoints if c.on_path is not False]
    if turns is None or len(whole) != 1:
        return None
    # a decorator's checkpoint is traced at no line of the learner's
    line = whole[0].line or next((d.lineno for _, d in _checkpoint_decorators(source)), None)
    return f"{turns.removesuffix('.')}; and remove the jax.checkpoint around all of it{_at(line)}."


def _left_out(found: Structure, rules: StructureRules, source: Source, problem: str) -> Cause | None:
    """Matrix products the required checkpoint must enclose, left outside it, by the learner's
    lines: a function of theirs called without the checkpoint (its call named), or lines written
    before or after it."""
    _, lines = _products_outside(found)
    if not lines:
        return None
    policy = _policy_keyword(rules)
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


_STRUCTURE_ADVICE = {
    MIN_CHECKPOINTS: "Try: one jax.checkpoint per part of the computation the problem names.",
    MAX_CHECKPOINTS: "Try: fewer jax.checkpoint calls, each around a larger part of the computation.",
    ENCLOSES: "Try: move the whole computation into the function you checkpoint.",
}


def _depth_advice(source: Source) -> str:
    """How to nest, in the shape of the learner's code: a scan's steps, or a chain of calls."""
    steps = [(step, line) for step, line in source.scan_steps() if step.isidentifier()]
    checkpointed = _checkpointed_functions(source)
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


def _cost_cause(problem: str, found: Structure, source: Source, reference: Structure | None = None, rows=()) -> Cause:
    detail = problem[0].upper() + problem[1:] + "."
    if "peaks at" in problem and reference is not None:
        kept = _policy_keeps(found, rows, source, reference)
        if kept is not None:
            return replace(kept, covers=(problem,), detail=detail)
        segments = _segments_cause(found, source, reference)
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
            f"Your gradient step runs a while_loop{_at(line)} whose number of trips is computed while the "
            f"step runs, so the judge cannot count its FLOPs against this problem's limit.",
            "Try: give the loop bounds fixed when your function is traced: jax.lax.fori_loop(0, n, ...) "
            "with a Python int n, or jax.lax.scan over the steps, and keep the work it does within the limit.",
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
                f"Try: keep one level of checkpoints: remove the outer jax.checkpoint"
                f"{_at(_outer_line(found, nested[0], source))} and keep the inner one, so that each value is "
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
        placed = _placed_late(found)
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


_OVER = "Your gradient step holds more memory at once than this problem allows: "
_RECOMPUTES = "Your gradient step recomputes more than this problem allows: "


def _figured(found: Cause, problem: str) -> Cause:
    """The figure measured against the limit in the cause's own sentence, its reason after it:
    "Your gradient step peaks at X bytes alive at once, Y over the Z allowed, because ..."."""
    if not isinstance(problem, Overrun):
        return found
    over = problem.measured - problem.allowed
    if "peaks at" in problem:
        prefix = _OVER
        lead = (
            f"Your gradient step peaks at {problem.measured:.0f} bytes alive at once, {over:.0f} over the "
            f"{problem.allowed:.0f} allowed"
        )
    else:
        prefix = _RECOMPUTES
        lead = (
            f"Your gradient step needs {problem.measured:.0f} FLOPs, {over:.0f} over the {problem.allowed:.0f} allowed"
        )
    if found.sentence.startswith(prefix):
        return replace(found, sentence=f"{lead}, because {found.sentence[len(prefix) :]}", detail="")
    if found.sentence == prefix[:-2] + ".":  # no cause the judge can establish: the figures at least
        return replace(found, sentence=f"{lead}.", detail="")
    return found


# What a policy keeps that the checkpoint would otherwise rebuild, by the policy's name.
_KEEPS = {
    "everything_saveable": "which keeps every value computed inside between the passes, so the backward pass "
    "rebuilds none of them",
    "dots_saveable": "which keeps the results of the matrix products inside between the passes instead of "
    "rebuilding them",
    "dots_with_no_batch_dims_saveable": "which keeps the results of the matrix products inside without a batch "
    "dimension between the passes instead of rebuilding them",
}


def _policy_keeps(found: Structure, rows, source: Source, reference: Structure) -> Cause | None:
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
    named = " and ".join(f"`{expr}`{_at(line)}" for (expr, line), _ in largest)
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
    return Cause(COST, f"{_OVER}{whose} {keeper.policy_text}, {keeps}.", advice)


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


def _placed_late(found: Structure) -> Cause | None:
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
        f"Your checkpoints save no memory in the backward pass: your jax.checkpoint{_at(checkpoint.line)} {where}.",
        "Try: checkpoint the early part instead (the first stages), whose values wait longest for the backward "
        "pass, and leave the last stage outside the checkpoint.",
    )


def _products_outside(structure: Structure) -> tuple[int, list[int]]:
    """How many matrix products run outside every checkpoint, and on which lines."""
    outside = [op for op in structure.on_path if op.primitive == "dot_general" and not op.checkpoints]
    return sum(op.count for op in outside), sorted({op.line for op in outside if op.line})


def _segments_cause(found: Structure, source: Source, reference: Structure) -> Cause | None:
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
            f"{_OVER}your code calls `{name}` without a checkpoint at line {calls[0]} "
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
            f"{_OVER}{shown} {'runs' if len(lines) == 1 else 'run'} outside every checkpoint, so the backward "
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
            f"{_OVER}your jax.checkpoint{_at(largest.line)} encloses {products} matrix products, and the backward "
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
            f"{_OVER}each of your {len(mine)} checkpoints keeps its input between the passes, so with segments "
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
            f"{_OVER}your jax.checkpoint{_at(looped[0].line)} wraps segments of {length} blocks (line {line}, "
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
            f"{_OVER}your outer scan cuts the steps into {count} blocks (line {line}, "
            f"`{source.line(line).split('  #')[0]}`), so rebuilding one block in the backward pass holds "
            f"1/{count} of all the steps' carries at once.",
            "Try: about the square root of the number of steps as the number of blocks (math.isqrt(steps)), so "
            "that the blocks kept and the steps of the block rebuilt are both few.",
        )
    return None


def _bytes_cause(
    rules: StructureRules, rows, missing, mine: int, theirs: int, found: Structure | None = None, source=None
) -> Cause:
    who = (
        f"the required policy ({policy_names.render(rules.policy)})"
        if rules.policy is not None
        else "the reference solution"
    )
    detail = f"It saves {mine} bytes of residuals where {who} saves {theirs}."
    why = _why_saved(rows, missing, who, found, source) if found is not None and source is not None else None
    if why is not None:
        advice = why[1] or _bytes_advice(who, rows, missing, mine, theirs, source)
        return Cause(BYTES, why[0], advice, detail=detail)
    if mine > theirs:
        sentence = f"Your code saves more for the backward pass than {who}."
    elif mine < theirs:
        sentence = f"Your code saves less for the backward pass than {who}, and recomputes more."
    else:
        sentence = f"Your code saves other values for the backward pass than {who}, of the same total size."
    found = _bytes_advice(who, rows, missing, mine, theirs, source)
    return Cause(BYTES, sentence, found, detail=detail)


def _why_saved(rows, missing, who: str, found: Structure, source: Source) -> tuple[str, str] | None:
    """The bytes' difference by its cause, where one is plain: an argument the backward pass reads
    because of a line of the learner's, or a policy of the learner's own that keeps or recomputes
    a value the required checkpointing does not."""
    extra = sorted((r for r in rows if r.offending), key=lambda r: -r.bytes)
    wanted = sorted(missing, key=lambda r: -r.bytes)
    if extra and extra[0].kind == "argument":
        uses = source.uses_of(extra[0].what)
        if uses:
            line = uses[-1]
            return (
                f"Your backward pass keeps the argument {extra[0].what}, which the reference solution's never "
                f"reads: your code computes with it at line {line} (`{source.line(line).split('  #')[0]}`) on "
                f"every call, and the reference leaves that computation out where it is not needed.",
                "",
            )
    used = [c for c in found.checkpoints if c.on_path is not False]
    if not used or policy_names.from_wire(used[0].policy)[0] != "custom":
        return None
    name = policy_names.from_wire(used[0].policy)[1]
    policy = "lambda policy" if name == "<lambda>" else f"policy {name}"
    policy += _at(used[0].policy_line)
    if wanted and not extra and not any(r.policy_saved for r in rows):
        return (
            f"Your {policy} keeps nothing: it answers False for every value, so the backward pass recomputes "
            f"{_named(wanted[0])}{_and_more(wanted)}, which {who} keeps.",
            f"Try: have your policy return True for the values {who} keeps, such as {_named(wanted[0])}: "
            f"{_READS_INPUTS}",
        )
    if wanted and not extra:
        return (
            f"Your {policy} recomputes {_named(wanted[0])}, which {who} keeps for the backward pass.",
            f"Try: have your policy return True for {_named(wanted[0])}, as {who}'s does: {_READS_INPUTS}",
        )
    if extra and not wanted:
        return (
            f"Your {policy} keeps {_named(extra[0])}, which {who} recomputes in the backward pass.",
            f"Try: have your policy return False for {_named(extra[0])}, as {who}'s does.",
        )
    return None


# What a policy of one's own is asked with, which a learner easily misreads.
_READS_INPUTS = (
    "the types your policy is given are the operation's inputs, so work out its result's shape from them "
    "and its params, and compare that with the statement's rule."
)


def _and_more(rows) -> str:
    return f", and {len(rows) - 1} more" if len(rows) > 1 else ""


def _bytes_advice(who: str, rows, missing, mine: int, theirs: int, source=None) -> str:
    extra = sorted((r for r in rows if r.offending), key=lambda r: -r.bytes)
    if extra and (mine >= theirs or not missing):
        if extra[0].kind == "argument":
            uses = source.uses_of(extra[0].what) if source is not None else []
            if uses and "where" in source.line(uses[-1]):
                return (
                    f"Try: jnp.where computes both of its branches, so decide while tracing instead: compute the "
                    f"condition itself under jax.ensure_compile_time_eval() and branch on it with a Python `if`, "
                    f"so that the branch that uses {extra[0].what} does not run when it is not taken."
                )
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
            text = f"{made_by} of shape ({', '.join(str(n) for n in row.shape)}), {math.prod(row.shape)} elements"
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
