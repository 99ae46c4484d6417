"""The residual, structure and cost rules of a problem, applied to what a submission's program does.

Every violation becomes one sentence a learner can act on, naming the residual (type, where it
comes from, the line of their code) and what the required policy does with it. The structure
rules are a table of small checks (``STRUCTURE_CHECKS``), each returning its problems.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable

from ..data import policy_names
from ..data.evidence import Checkpoint, Cost, Residual, ResidualRow, Structure
from ..packages import checks
from ..packages.package import CostRules, ResidualRules, StructureRules


@dataclass(frozen=True)
class Saved:
    """What a program saves, with its structure, which names the checkpoint whose policy kept a
    residual (``Residual.kept_by``)."""

    residuals: list[Residual]
    structure: Structure

    def keeper(self, r: Residual) -> Checkpoint | None:
        if r.kept_by is None or r.kept_by >= len(self.structure.checkpoints):
            return None
        return self.structure.checkpoints[r.kept_by]


# A constant is not saved by anything: it is part of the program (numpy arrays it closes over, a
# Python number or a concrete JAX scalar baked in, literals); no policy decides it, so the
# residual rules leave it out, whatever its size (whether ``alpha`` is written as a float or a
# concrete ``jnp`` value is a matter of style).
UNDECIDED = ("constant", "literal")


def residual_key(r: Residual, saved: Saved) -> tuple:
    """What makes two residuals the same for the rules: where they come from, dtype and shape.

    Arguments, named values and values a checkpoint's policy kept are compared by their
    provenance (which policy kept a value is ``check_keepers``' concern), and every residual by the
    memory it is kept in (on the device, or offloaded to the host). Other intermediates are
    compared by type only: whether plain autodiff keeps ``2 * h`` (for ``h ** 2``) or ``h`` (for
    ``h * h``) is a matter of style, not of policy. Axes of size one are ignored: ``jnp.matmul``
    may drop a unit batch axis that ``einsum`` keeps, and the array held in memory is the same.
    """
    shape = tuple(d for d in r.shape if d != 1)
    kept = saved.keeper(r) is not None
    if r.kind == "primitive" and not kept:
        return ("intermediate", r.dtype, shape, r.stacked, r.memory)
    return (r.kind, r.what, r.dtype, shape, r.stacked, kept, r.memory)


def _elsewhere(row: ResidualRow, wanted: ResidualRow, who: str) -> str:
    """The same value, kept in another memory than the required policy keeps it."""
    if wanted.offloaded:
        return f"saved on the device; {who} offloads it to {wanted.memory}"
    return f"offloaded to {row.memory}; {who} keeps it on the device"


def _pair_by_memory(rows: list[ResidualRow], missing: list[tuple], mine: Saved, who: str) -> None:
    """A saved value the reference keeps in another memory is one difference, told as such: the
    submission's row says where it should be, and the reference's is not listed as missing too.
    ``missing``: (the reference's row, its key) pairs."""
    for row in rows:
        if not row.offending:
            continue
        key = residual_key(row, mine)[:-1]
        wanted = next((pair for pair in missing if pair[1][:-1] == key and pair[0].memory != row.memory), None)
        if wanted is not None:
            missing.remove(wanted)
            row.reason = _elsewhere(row, wanted[0], who)


def check_keepers(mine: Saved, rules: StructureRules) -> list[str]:
    """Values kept by a checkpoint whose policy is not the required one (one nested around the
    required checkpoint decides what the forward pass keeps, say)."""
    if rules.policy is None:
        return []
    required = policy_names.render(rules.policy)
    problems = []
    for r in mine.residuals:
        keeper = mine.keeper(r)
        if keeper is not None and policy_names.from_wire(keeper.policy) != rules.policy:
            problems.append(
                f"{r.phrase()} is kept by the jax.checkpoint{_at(keeper.line)} with "
                f"{policy_as_written(keeper)}, not by one with policy={required}"
            )
    return problems


def _who(structure: StructureRules) -> str:
    if structure.policy is not None and structure.policy[0] in policy_names.OFFLOADING:
        return f"the {structure.policy[0]} policy"  # its arguments are told once, by the structure rules
    if structure.policy is not None and structure.policy != policy_names.plain("nothing_saveable"):
        return f"the {policy_names.render(structure.policy)} policy"
    return "the required checkpointing"


def check_residuals(
    mine: Saved, reference: Saved, rules: ResidualRules, structure: StructureRules
) -> tuple[list[str], list[ResidualRow], list[ResidualRow]]:
    """Messages, the submission's rows (marked ``offending`` with a ``reason``), and missing rows:
    what the child's report says is saved, against the reference's, residual by residual."""
    rows = [ResidualRow(**vars(r)) for r in mine.residuals]
    decided = [r for r in rows if r.kind not in UNDECIDED]
    theirs = [r for r in reference.residuals if r.kind not in UNDECIDED]
    problems: list[str] = []
    missing: list[ResidualRow] = []
    who = _who(structure)
    if rules.match_reference:
        unmatched: list[tuple] = []
        remaining = Counter(residual_key(r, reference) for r in theirs)
        for row in decided:
            key = residual_key(row, mine)
            if remaining[key] > 0:
                remaining[key] -= 1
            else:
                row.offending = True
                row.reason = (
                    f"{who} does not keep this input; your code keeps it"
                    if row.kind == "argument"
                    else f"{who} recomputes this; your code saved it"
                )
        for r in theirs:
            key = residual_key(r, reference)
            if remaining[key] > 0:
                remaining[key] -= 1
                unmatched.append((r, key))
        # The same value reached by another path (a custom_vjp's own forward pass, a checkpoint
        # nested in the required one, jit, scan, vmap) is kept by another hand: it is the same
        # operation's output, of the same type and size, in the same memory, on both sides. Not a
        # difference to show (which checkpoint kept it is check_keepers' and the structure rules' concern).
        same_value = Counter(_same_value(r) for r, _ in unmatched)
        for row in decided:
            if row.offending and same_value[_same_value(row)] > 0:
                same_value[_same_value(row)] -= 1
                row.offending, row.reason = False, ""
                unmatched.remove(next(p for p in unmatched if _same_value(p[0]) == _same_value(row)))
        pairs = [
            (ResidualRow(**vars(replace(r, line=None, kept_by=None)), offending=True, reason=_recomputed(r, who)), key)
            for r, key in unmatched
        ]
        _pair_by_memory(rows, pairs, mine, who)  # the same value in another memory: one difference
        missing = [row for row, _ in pairs]
        problems += row_problems(rows, missing)
    for row in decided:
        if rules.allowed_kinds is not None and row.kind not in rules.allowed_kinds:
            _flag(row, problems, f"only {', '.join(rules.allowed_kinds)} may be saved")
        elif (
            rules.allowed_primitives is not None
            and row.kind == "primitive"
            and row.what not in rules.allowed_primitives
        ):
            _flag(row, problems, f"only outputs of {', '.join(rules.allowed_primitives)} may be saved")
    # The limits on how much is saved (max_bytes, max_count, at_most_reference) are not judged on
    # this report of the child's: ``trusted.value_findings`` enforces them on the verifier's count.
    return problems, rows, missing


def _same_value(r: Residual) -> tuple:
    """An operation's output by what it is and where it is kept, whichever path made or kept it."""
    return (r.kind, r.what, r.dtype, tuple(d for d in r.shape if d != 1), r.stacked, r.bytes, r.memory)


def _recomputed(r: Residual, who: str) -> str:
    """Why a value the reference keeps and the submission does not is marked."""
    if r.kind == "argument":
        return f"{who} keeps this input; your code does not"
    saves = f"offloads this to {r.memory}" if r.offloaded else "saves this"
    return f"{who} {saves}; your code recomputes it"


def row_problems(rows: list[ResidualRow], missing: list[ResidualRow]) -> list[str]:
    """One problem per marked row: the submission's own, then those it misses."""
    return [
        f"{row.phrase()}: {row.reason}"
        for row in sorted((r for r in rows if r.offending), key=_prominence) + sorted(missing, key=_prominence)
    ]


# Operations JAX's own differentiation rules add; a learner recognises the values they wrote.
_PLUMBING = {
    "broadcast_in_dim",
    "convert_element_type",
    "reshape",
    "squeeze",
    "transpose",
    "select_n",
    "gt",
    "lt",
    "ge",
    "le",
    "eq",
    "ne",
    "sub",
    "mul",
    "add",
    "neg",
}


def _prominence(row: ResidualRow) -> tuple:
    """Name the residuals a learner will recognise first: big ones, then ones they wrote."""
    return (-row.bytes, row.kind == "primitive" and row.what in _PLUMBING)


def _flag(row: ResidualRow, problems: list[str], reason: str) -> None:
    if not row.offending:
        row.offending, row.reason = True, reason
        problems.append(f"{row.phrase()}: {reason}")


def _at(line) -> str:
    return f" (line {line})" if line else ""


# ---------------------------------------------------------------------------- structure


def _on_path(found: Structure) -> list[int]:
    """The checkpoints that do something: on the differentiated path (None, an older reading: yes)."""
    return [i for i, c in enumerate(found.checkpoints) if c.on_path is not False]


def _matching(found: Structure, rules: StructureRules) -> list[int]:
    return [i for i in _on_path(found) if policy_names.from_wire(found.checkpoints[i].policy) == rules.policy]


def _no_hand_written_derivative(found: Structure, rules: StructureRules) -> list[str]:
    if rules.allow_custom_vjp or not found.backward_rules:
        return []
    first = found.backward_rules[0]
    use = f"jax.checkpoint with policy={policy_names.render(rules.policy)}" if rules.policy else "jax.checkpoint"
    return [
        f"a hand-written {first.kind}{_at(first.line)} defines its own derivative, so the judge cannot see "
        f"how your gradient is computed: use {use}"
    ]


def _has_checkpoint(found: Structure, rules: StructureRules) -> list[str]:
    if rules.policy is None or found.checkpoints:
        return []
    return [
        f"no jax.checkpoint was found in your program; the problem requires "
        f"jax.checkpoint with policy={policy_names.render(rules.policy)}"
    ]


def _uses_policy(found: Structure, rules: StructureRules) -> list[str]:
    if rules.policy is None or _matching(found, rules):
        return []
    required = policy_names.render(rules.policy)
    idle = [c for c in found.checkpoints if c.on_path is False and policy_names.from_wire(c.policy) == rules.policy]
    if idle:
        return [
            f"your jax.checkpoint with policy={required}{_at(idle[0].line)} is not on the path from your "
            f"inputs to the output (its inputs are behind stop_gradient, or its result is not used), so it "
            f"changes nothing in your gradient; the computation must run inside it"
        ]
    used = "; ".join(f"{policy_as_written(c)}{_at(c.line)}" for c in found.checkpoints)
    return [f"your jax.checkpoint uses {used}, but the problem requires policy={required}"]


def policy_as_written(c: Checkpoint, source_names: set[str] | None = None) -> str:
    """A checkpoint's policy as the learner wrote it: JAX's by its name, their own by theirs.

    ``source_names``: the identifiers of the learner's source; nothing_saveable where they never
    wrote it is jax.checkpoint's default (neither remat implementation keeps that difference)."""
    policy = policy_names.from_wire(c.policy)
    if (
        policy == policy_names.plain("nothing_saveable")
        and source_names is not None
        and "nothing_saveable" not in source_names
    ):
        return "no policy, which means nothing_saveable"
    if policy[0] != "custom":
        return c.policy_text
    if c.policy_origin == "forged":
        return f"{policy[1]}, which is not JAX's own policy object"
    if policy[1] == "<lambda>":
        return f"a lambda at line {c.policy_line}" if c.policy_line else "a lambda"
    defined = f", defined at line {c.policy_line}" if c.policy_line else ""
    return f"a custom policy ({policy[1]}{defined})"


def _encloses(found: Structure, rules: StructureRules) -> list[str]:
    if rules.policy is None or not rules.encloses:
        return []
    required = policy_names.render(rules.policy)
    matching = set(_matching(found, rules))
    inside, outside = Counter(), Counter()
    for i in matching:  # the outermost ones: a nested one's operations are its parent's too
        if not _ancestors(found, i) & matching:
            inside.update(found.checkpoints[i].encloses)
    first_outside = {}
    for op in found.on_path:
        if not matching & set(op.checkpoints):
            outside[op.primitive] += op.count
            first_outside.setdefault(op.primitive, op.line)
    problems = []
    # The effect, not a count: what the rule asks is that this kind of operation runs inside the
    # checkpoint, none of it outside on the differentiated path. Fewer operations inside with none
    # outside is the same work written otherwise (one fused product for q, k and v, then `split`).
    for primitive, count in sorted(Counter(rules.encloses).items()):
        words = _operation_words(primitive)
        if inside[primitive] == 0 or (inside[primitive] < count and outside[primitive]):
            problems.append(
                f"the checkpoint with policy {required} must enclose {count} {words}; yours encloses "
                f"{inside[primitive]}, so part of the computation runs outside it"
                + (f" (line {first_outside[primitive]})" if first_outside.get(primitive) else "")
            )
        elif outside[primitive]:
            problems.append(
                f"{outside[primitive]} {words} on the path to your output run outside "
                f"the checkpoint with policy {required}{_at(first_outside[primitive])}: the whole "
                f"computation must run inside it"
            )
    return problems


# How a problem's required operations read in a sentence: as a learner writes them.
_OPERATION_WORDS = {
    "dot_general": "matrix product(s) (`@`, `jnp.dot`, `einsum`)",
    "iota": "`jnp.arange` table(s)",
    "logistic": "sigmoid(s)",
    "integer_pow": "power(s) (`**`)",
}


def _operation_words(primitive: str) -> str:
    return _OPERATION_WORDS.get(primitive, f"`{primitive}` operation(s)")


def _ancestors(found: Structure, index: int) -> set[int]:
    parents, parent = set(), found.checkpoints[index].parent
    while parent is not None and parent not in parents and parent < len(found.checkpoints):
        parents.add(parent)
        parent = found.checkpoints[parent].parent
    return parents


def _min_checkpoints(found: Structure, rules: StructureRules) -> list[str]:
    working = len(_on_path(found))
    if rules.min_checkpoints is None or working >= rules.min_checkpoints:
        return []
    idle = len(found.checkpoints) - working
    return [
        f"your program has {working} jax.checkpoint(s) on the path to its output"
        + (f" ({idle} more change nothing in the gradient)" if idle else "")
        + f"; at least {rules.min_checkpoints} are required"
    ]


def _max_checkpoints(found: Structure, rules: StructureRules) -> list[str]:
    if rules.max_checkpoints is None or len(found.checkpoints) <= rules.max_checkpoints:
        return []
    return [f"your program has {len(found.checkpoints)} jax.checkpoint(s); at most {rules.max_checkpoints} are allowed"]


def _min_depth(found: Structure, rules: StructureRules) -> list[str]:
    if rules.min_depth is None:
        return []
    deepest = max((found.checkpoints[i].depth for i in _on_path(found)), default=-1)
    if deepest >= rules.min_depth:
        return []
    have = (
        "none of your checkpoints is inside another (one level deep)"
        if deepest <= 0
        else f"your checkpoints are nested {deepest + 1} levels deep"
    )
    return [
        f"{have}; this problem needs jax.checkpoint nested at least {rules.min_depth + 1} levels deep "
        f"(a checkpoint inside a checkpoint)"
    ]


@dataclass(frozen=True, eq=False)  # a check is itself: the explanations name it by the object, not by a string
class StructureCheck:
    check: Callable[[Structure, StructureRules], list[str]]
    stops: bool = False  # when it finds a problem, the checks after it would only repeat it


NO_HAND_WRITTEN_DERIVATIVE = StructureCheck(_no_hand_written_derivative)
HAS_CHECKPOINT = StructureCheck(_has_checkpoint, stops=True)
USES_POLICY = StructureCheck(_uses_policy, stops=True)
ENCLOSES = StructureCheck(_encloses)
MIN_CHECKPOINTS = StructureCheck(_min_checkpoints)
MAX_CHECKPOINTS = StructureCheck(_max_checkpoints)
MIN_DEPTH = StructureCheck(_min_depth)
# In the order their problems are told. prevent_cse is read from the source (judge.grading.source_reading):
# JAX 0.10.2's remat3 drops it from the program.
STRUCTURE_CHECKS = (
    NO_HAND_WRITTEN_DERIVATIVE,
    HAS_CHECKPOINT,
    USES_POLICY,
    ENCLOSES,
    MIN_CHECKPOINTS,
    MAX_CHECKPOINTS,
    MIN_DEPTH,
)


def structure_problems(found: Structure, rules: StructureRules) -> list[tuple[StructureCheck, str]]:
    """The structure rules' problems, each with the check that found it."""
    problems: list[tuple[StructureCheck, str]] = []
    for step in STRUCTURE_CHECKS:
        found_here = step.check(found, rules)
        problems += [(step, problem) for problem in found_here]
        if found_here and step.stops:
            break
    return problems


# ---------------------------------------------------------------------------- cost


# A limit's sentence that carries its figures (``judge.words`` states them in the cause's sentence).
Overrun = checks.Overrun


def check_cost(cost: Cost, reference: Cost | None, found: Structure, rules: CostRules) -> list[str]:
    """The cost limits on one case, each as ``checks.COST`` declares it and in its order (the peak
    first); ``reference``: the reference's cost on the same case; ``found`` places a sentence in
    the learner's code."""
    return [told for _, told in checks.enforced(checks.COST, rules, checks.Spending(cost, reference, found))]
