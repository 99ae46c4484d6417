"""The residual and structure rules of a problem, applied to what a submission saved.

Every violation becomes one sentence a learner can act on, naming the residual (type, where it
comes from, the line of their code) and what the required policy does with it.
"""
from __future__ import annotations

from collections import Counter

from . import policy_names
from .package import CostRules, ResidualRules, StructureRules


def describe_residual(r: dict) -> str:
    kind, what = r["kind"], r["what"]
    if kind == "argument":
        where = f"the argument {what}"
    elif kind == "named":
        where = f"the value named '{what}'"
    elif kind == "primitive":
        where = f"output of {what}"
    else:
        where = f"a {kind}"
    if r.get("stacked"):
        where += f", stacked over {r['stacked']} scan steps"
    line = f" at line {r['line']}" if r.get("line") else ""
    return f"{r['type']} {where}{line}"


def residual_key(r: dict) -> tuple:
    """What makes two residuals the same for the rules: where they come from, dtype and shape.

    Arguments, named values and values a checkpoint policy chose to keep are compared by their
    provenance. Other intermediates are compared by type only: whether plain autodiff keeps
    ``2 * h`` (for ``h ** 2``) or ``h`` (for ``h * h``) is a matter of style, not of policy.
    Axes of size one are ignored: ``jnp.matmul`` may drop a unit batch axis that ``einsum``
    keeps, and the array held in memory is the same.
    """
    shape = tuple(d for d in r["shape"] if d != 1)
    if r["kind"] == "primitive" and not r.get("policy_saved"):
        return ("intermediate", r["dtype"], shape, r.get("stacked"))
    return (r["kind"], r["what"], r["dtype"], shape, r.get("stacked"), bool(r.get("policy_saved")))


def immaterial(r: dict) -> bool:
    """A one-element constant (a Python number or a concrete JAX scalar baked into the program).

    Whether reverse mode keeps such a scalar depends on whether the learner wrote ``alpha`` as a
    Python float or as a concrete ``jnp`` value, a matter of style worth four bytes, so it is
    neither required nor refused when residuals are compared with the reference.
    """
    return r["kind"] in ("constant", "literal") and all(d == 1 for d in r["shape"])


def _who(structure: StructureRules) -> str:
    if structure.policy is not None and structure.policy != policy_names.plain("nothing_saveable"):
        return f"the {policy_names.render(structure.policy)} policy"
    return "the required checkpointing"


def check_residuals(mine: list[dict], reference: list[dict], rules: ResidualRules,
                    structure: StructureRules) -> tuple[list[str], list[dict], list[dict]]:
    """Messages, the submission's rows (with ``offending`` and ``reason``), and missing rows."""
    rows = [dict(r, offending=False, reason="") for r in mine]
    problems: list[str] = []
    missing: list[dict] = []
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
                row["offending"] = True
                row["reason"] = f"{who} recomputes this; your code saved it"
        for r in reference:
            if immaterial(r):
                continue
            key = residual_key(r)
            if remaining[key] > 0:
                remaining[key] -= 1
                missing.append(dict(r, line=None, offending=True,
                                    reason=f"{who} saves this; your code recomputes it"))
        for row in sorted((r for r in rows if r["offending"]), key=_prominence) + sorted(missing, key=_prominence):
            problems.append(f"{describe_residual(row)}: {row['reason']}")
    for row in rows:
        if rules.allowed_kinds is not None and row["kind"] not in rules.allowed_kinds:
            _flag(row, problems, f"only {', '.join(rules.allowed_kinds)} may be saved")
        elif (rules.allowed_primitives is not None and row["kind"] == "primitive"
              and row["what"] not in rules.allowed_primitives):
            _flag(row, problems, f"only outputs of {', '.join(rules.allowed_primitives)} may be saved")
    total = sum(r["bytes"] for r in mine)
    if rules.at_most_reference:
        ref_total = sum(r["bytes"] for r in reference)
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


def _prominence(row: dict) -> tuple:
    """Name the residuals a learner will recognise first: big ones, then ones they wrote."""
    return (-row["bytes"], row["kind"] == "primitive" and row["what"] in _PLUMBING)


def _flag(row: dict, problems: list[str], reason: str) -> None:
    if not row["offending"]:
        row["offending"], row["reason"] = True, reason
        problems.append(f"{describe_residual(row)}: {reason}")


def _at(line) -> str:
    return f" (line {line})" if line else ""


def check_structure(found: dict, rules: StructureRules) -> list[str]:
    checkpoints = found["checkpoints"]
    problems: list[str] = []
    if rules.policy is not None:
        required = policy_names.render(rules.policy)
        if not rules.allow_custom_vjp and found["custom_vjp"]:
            problems.append(f"a hand-written custom_vjp{_at(found['custom_vjp'][0]['line'])} is not the required "
                            f"policy: use jax.checkpoint with policy={required}")
        if not checkpoints:
            problems.append(f"no jax.checkpoint was found in your program; the problem requires "
                            f"jax.checkpoint with policy={required}")
            return problems
        matching = [c for c in checkpoints if policy_from_wire(c["policy"]) == rules.policy]
        if not matching:
            used = "; ".join(f"{c['policy_text']}{_at(c['line'])}" for c in checkpoints)
            problems.append(f"your jax.checkpoint uses {used}, but the problem requires policy={required}")
            return problems
        enclosed = Counter()
        for c in matching:
            enclosed.update(c["encloses"])
        needed = Counter(rules.encloses)
        for primitive, count in sorted(needed.items()):
            if enclosed[primitive] < count:
                problems.append(f"the checkpoint with policy {required} must enclose {count} {primitive} "
                                f"operation(s); yours encloses {enclosed[primitive]}, so part of the "
                                f"computation runs outside it")
    if rules.min_checkpoints is not None and len(checkpoints) < rules.min_checkpoints:
        problems.append(f"your program has {len(checkpoints)} jax.checkpoint(s); at least "
                        f"{rules.min_checkpoints} are required")
    if rules.max_checkpoints is not None and len(checkpoints) > rules.max_checkpoints:
        problems.append(f"your program has {len(checkpoints)} jax.checkpoint(s); at most "
                        f"{rules.max_checkpoints} are allowed")
    if rules.min_depth is not None:
        deepest = max((c["depth"] for c in checkpoints), default=-1)
        if deepest < rules.min_depth:
            problems.append(f"your checkpoints are nested {deepest + 1} level(s) deep; this problem needs "
                            f"jax.checkpoint nested at least {rules.min_depth + 1} levels deep "
                            f"(a checkpoint inside a checkpoint)")
    if rules.forbid_checkpoint_at_output:
        for c in checkpoints:
            if c.get("feeds_output") is True:
                problems.append(f"the jax.checkpoint{_at(c['line'])} produces the function's output: the backward "
                                f"pass starts by recomputing it at once, so it keeps the same values alive as no "
                                f"checkpoint and saves no memory; checkpoint an earlier stage instead")
    for c in checkpoints:
        wanted, where = rules.prevent_cse, ""
        if c.get("in_loop") is True and rules.prevent_cse_in_loops is not None:
            wanted, where = rules.prevent_cse_in_loops, " inside the scan"
        elif c.get("in_loop") is False and rules.prevent_cse_outside_loops is not None:
            wanted, where = rules.prevent_cse_outside_loops, " outside any scan"
        if wanted is not None and c["prevent_cse"] != wanted:
            why = (" (a scan already keeps XLA from merging the recomputation with the forward pass)"
                   if wanted is False else " (without it, XLA may merge the recomputation away under jit)")
            problems.append(f"the jax.checkpoint{_at(c['line'])}{where} has prevent_cse={c['prevent_cse']}; "
                            f"this problem needs prevent_cse={wanted}{why}")
    return problems


def policy_from_wire(policy) -> tuple:
    """Undo ``residuals._jsonable_policy``: lists back to the canonical tuples."""
    kind = policy[0]
    if kind == "save_from_both_policies":
        return policy_names.both(policy_from_wire(policy[1][0]), policy_from_wire(policy[1][1]))
    if kind in policy_names.WITH_NAMES:
        return policy_names.with_names(kind, policy[1])
    return tuple(policy)


def check_cost(cost: dict, rules: CostRules) -> list[str]:
    problems = []
    if rules.max_flops is not None and cost["flops"] > rules.max_flops:
        problems.append(f"your gradient step needs {cost['flops']:.0f} FLOPs; at most "
                        f"{rules.max_flops:.0f} are allowed (too much recomputation)")
    if rules.max_peak_bytes is not None and cost["peak_bytes"] > rules.max_peak_bytes:
        problems.append(f"your gradient step peaks at {cost['peak_bytes']} bytes alive at once; at most "
                        f"{rules.max_peak_bytes} are allowed")
    return problems
