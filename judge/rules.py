"""The residual, structure and cost rules of a problem, applied to what a submission's program does.

Every violation becomes one sentence a learner can act on, naming the residual (type, where it
comes from, the line of their code) and what the required policy does with it. The structure
rules are a table of small checks (``STRUCTURE_CHECKS``), each returning its problems.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable

from . import policy_names
from .evidence import Checkpoint, Cost, Residual, ResidualRow, Structure
from .package import CostRules, ResidualRules, StructureRules


def residual_key(r: Residual) -> tuple:
    """What makes two residuals the same for the rules: where they come from, dtype and shape.

    Arguments, named values and values a checkpoint policy chose to keep are compared by their
    provenance. Other intermediates are compared by type only: whether plain autodiff keeps
    ``2 * h`` (for ``h ** 2``) or ``h`` (for ``h * h``) is a matter of style, not of policy.
    Axes of size one are ignored: ``jnp.matmul`` may drop a unit batch axis that ``einsum``
    keeps, and the array held in memory is the same.
    """
    shape = tuple(d for d in r.shape if d != 1)
    if r.kind == "primitive" and not r.policy_saved:
        return ("intermediate", r.dtype, shape, r.stacked)
    return (r.kind, r.what, r.dtype, shape, r.stacked, r.policy_saved)


def immaterial(r: Residual) -> bool:
    """A one-element constant (a Python number or a concrete JAX scalar baked into the program).

    Whether reverse mode keeps such a scalar depends on whether the learner wrote ``alpha`` as a
    Python float or as a concrete ``jnp`` value, a matter of style worth four bytes, so it is
    neither required nor refused when residuals are compared with the reference.
    """
    return r.kind in ("constant", "literal") and all(d == 1 for d in r.shape)


def _who(structure: StructureRules) -> str:
    if structure.policy is not None and structure.policy != policy_names.plain("nothing_saveable"):
        return f"the {policy_names.render(structure.policy)} policy"
    return "the required checkpointing"


def check_residuals(mine: list[Residual], reference: list[Residual], rules: ResidualRules,
                    structure: StructureRules) -> tuple[list[str], list[ResidualRow], list[ResidualRow]]:
    """Messages, the submission's rows (marked ``offending`` with a ``reason``), and missing rows."""
    rows = [ResidualRow(**vars(r)) for r in mine]
    problems: list[str] = []
    missing: list[ResidualRow] = []
    who = _who(structure)
    if rules.match_reference:
        remaining = Counter(residual_key(r) for r in reference if not immaterial(r))
        for row in rows:
            if immaterial(row):
                continue
            key = residual_key(row)
            if remaining[key] > 0:
                remaining[key] -= 1
            else:
                row.offending = True
                row.reason = f"{who} recomputes this; your code saved it"
        for r in reference:
            if immaterial(r):
                continue
            key = residual_key(r)
            if remaining[key] > 0:
                remaining[key] -= 1
                missing.append(ResidualRow(**vars(replace(r, line=None)), offending=True,
                                           reason=f"{who} saves this; your code recomputes it"))
        for row in sorted((r for r in rows if r.offending), key=_prominence) + sorted(missing, key=_prominence):
            problems.append(f"{row.phrase()}: {row.reason}")
    for row in rows:
        if rules.allowed_kinds is not None and row.kind not in rules.allowed_kinds:
            _flag(row, problems, f"only {', '.join(rules.allowed_kinds)} may be saved")
        elif (rules.allowed_primitives is not None and row.kind == "primitive"
              and row.what not in rules.allowed_primitives):
            _flag(row, problems, f"only outputs of {', '.join(rules.allowed_primitives)} may be saved")
    total = sum(r.bytes for r in mine)
    if rules.at_most_reference:
        ref_total = sum(r.bytes for r in reference)
        if len(mine) > len(reference) or total > ref_total:
            problems.append(f"your code saves {len(mine)} residuals ({total} bytes); {who} saves "
                            f"{len(reference)} ({ref_total} bytes) on this case, and yours may not save more")
    if rules.max_bytes is not None and total > rules.max_bytes:
        problems.append(f"your code saves {total} bytes of residuals; at most {rules.max_bytes} are allowed")
    if rules.max_count is not None and len(mine) > rules.max_count:
        problems.append(f"your code saves {len(mine)} residuals; at most {rules.max_count} are allowed")
    return problems, rows, missing


# Operations JAX's own differentiation rules add; a learner recognises the values they wrote.
_PLUMBING = {"broadcast_in_dim", "convert_element_type", "reshape", "squeeze", "transpose", "select_n",
             "gt", "lt", "ge", "le", "eq", "ne", "sub", "mul", "add", "neg"}


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

def _matching(found: Structure, rules: StructureRules) -> list[Checkpoint]:
    return [c for c in found.checkpoints if policy_names.from_wire(c.policy) == rules.policy]


def _no_custom_vjp(found: Structure, rules: StructureRules) -> list[str]:
    if rules.policy is None or rules.allow_custom_vjp or not found.custom_vjp_lines:
        return []
    return [f"a hand-written custom_vjp{_at(found.custom_vjp_lines[0])} is not the required "
            f"policy: use jax.checkpoint with policy={policy_names.render(rules.policy)}"]


def _has_checkpoint(found: Structure, rules: StructureRules) -> list[str]:
    if rules.policy is None or found.checkpoints:
        return []
    return [f"no jax.checkpoint was found in your program; the problem requires "
            f"jax.checkpoint with policy={policy_names.render(rules.policy)}"]


def _uses_policy(found: Structure, rules: StructureRules) -> list[str]:
    if rules.policy is None or _matching(found, rules):
        return []
    used = "; ".join(f"{c.policy_text}{_at(c.line)}" for c in found.checkpoints)
    return [f"your jax.checkpoint uses {used}, but the problem requires policy={policy_names.render(rules.policy)}"]


def _encloses(found: Structure, rules: StructureRules) -> list[str]:
    if rules.policy is None:
        return []
    required = policy_names.render(rules.policy)
    enclosed = Counter()
    for c in _matching(found, rules):
        enclosed.update(c.encloses)
    problems = []
    for primitive, count in sorted(Counter(rules.encloses).items()):
        if enclosed[primitive] < count:
            problems.append(f"the checkpoint with policy {required} must enclose {count} {primitive} "
                            f"operation(s); yours encloses {enclosed[primitive]}, so part of the "
                            f"computation runs outside it")
    return problems


def _min_checkpoints(found: Structure, rules: StructureRules) -> list[str]:
    if rules.min_checkpoints is None or len(found.checkpoints) >= rules.min_checkpoints:
        return []
    return [f"your program has {len(found.checkpoints)} jax.checkpoint(s); at least "
            f"{rules.min_checkpoints} are required"]


def _max_checkpoints(found: Structure, rules: StructureRules) -> list[str]:
    if rules.max_checkpoints is None or len(found.checkpoints) <= rules.max_checkpoints:
        return []
    return [f"your program has {len(found.checkpoints)} jax.checkpoint(s); at most "
            f"{rules.max_checkpoints} are allowed"]


def _min_depth(found: Structure, rules: StructureRules) -> list[str]:
    if rules.min_depth is None:
        return []
    deepest = max((c.depth for c in found.checkpoints), default=-1)
    if deepest >= rules.min_depth:
        return []
    return [f"your checkpoints are nested {deepest + 1} level(s) deep; this problem needs "
            f"jax.checkpoint nested at least {rules.min_depth + 1} levels deep "
            f"(a checkpoint inside a checkpoint)"]


def _not_at_output(found: Structure, rules: StructureRules) -> list[str]:
    if not rules.forbid_checkpoint_at_output:
        return []
    return [f"the jax.checkpoint{_at(c.line)} produces the function's output: the backward "
            f"pass starts by recomputing it at once, so it keeps the same values alive as no "
            f"checkpoint and saves no memory; checkpoint an earlier stage instead"
            for c in found.checkpoints if c.feeds_output is True]


def _prevent_cse(found: Structure, rules: StructureRules) -> list[str]:
    problems = []
    for c in found.checkpoints:
        wanted, where = rules.prevent_cse, ""
        if c.in_loop is True and rules.prevent_cse_in_loops is not None:
            wanted, where = rules.prevent_cse_in_loops, " inside the scan"
        elif c.in_loop is False and rules.prevent_cse_outside_loops is not None:
            wanted, where = rules.prevent_cse_outside_loops, " outside any scan"
        if wanted is not None and c.prevent_cse != wanted:
            why = (" (a scan already keeps XLA from merging the recomputation with the forward pass)"
                   if wanted is False else " (without it, XLA may merge the recomputation away under jit)")
            problems.append(f"the jax.checkpoint{_at(c.line)}{where} has prevent_cse={c.prevent_cse}; "
                            f"this problem needs prevent_cse={wanted}{why}")
    return problems


@dataclass(frozen=True)
class StructureCheck:
    check: Callable[[Structure, StructureRules], list[str]]
    stops: bool = False  # when it finds a problem, the checks after it would only repeat it


# In the order their problems are told.
STRUCTURE_CHECKS = (
    StructureCheck(_no_custom_vjp),
    StructureCheck(_has_checkpoint, stops=True),
    StructureCheck(_uses_policy, stops=True),
    StructureCheck(_encloses),
    StructureCheck(_min_checkpoints),
    StructureCheck(_max_checkpoints),
    StructureCheck(_min_depth),
    StructureCheck(_not_at_output),
    StructureCheck(_prevent_cse),
)


def check_structure(found: Structure, rules: StructureRules) -> list[str]:
    problems: list[str] = []
    for step in STRUCTURE_CHECKS:
        found_here = step.check(found, rules)
        problems += found_here
        if found_here and step.stops:
            break
    return problems


# ---------------------------------------------------------------------------- cost

def check_cost(cost: Cost, rules: CostRules) -> list[str]:
    problems = []
    if rules.max_flops is not None and cost.flops > rules.max_flops:
        problems.append(f"your gradient step needs {cost.flops:.0f} FLOPs; at most "
                        f"{rules.max_flops:.0f} are allowed (too much recomputation)")
    if rules.max_peak_bytes is not None and cost.peak_bytes > rules.max_peak_bytes:
        problems.append(f"your gradient step peaks at {cost.peak_bytes} bytes alive at once; at most "
                        f"{rules.max_peak_bytes} are allowed")
    return problems
