"""The last cause: the residuals' bytes differ from what the required policy (or the reference)
saves, by a plain cause where there is one (an argument kept because of a line of the learner's, a
policy of their own that keeps or recomputes a value), else by the totals.
"""

from __future__ import annotations

from ..data import policy_names
from ..data.evidence import Structure
from ..packages.package import StructureRules
from ..source import Source
from .shared import BYTES, Cause, at, named


def bytes_cause(
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
    policy += at(used[0].policy_line)
    if wanted and not extra and not any(r.policy_saved for r in rows):
        return (
            f"Your {policy} keeps nothing: it answers False for every value, so the backward pass recomputes "
            f"{named(wanted[0])}{_and_more(wanted)}, which {who} keeps.",
            f"Try: have your policy return True for the values {who} keeps, such as {named(wanted[0])}: "
            f"{_READS_INPUTS}",
        )
    if wanted and not extra:
        return (
            f"Your {policy} recomputes {named(wanted[0])}, which {who} keeps for the backward pass.",
            f"Try: have your policy return True for {named(wanted[0])}, as {who}'s does: {_READS_INPUTS}",
        )
    if extra and not wanted:
        return (
            f"Your {policy} keeps {named(extra[0])}, which {who} recomputes in the backward pass.",
            f"Try: have your policy return False for {named(extra[0])}, as {who}'s does.",
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
        return f"Try: let {named(extra[0])} be recomputed in the backward pass instead of saved."
    wanted = sorted(missing, key=lambda r: -r.bytes)
    if wanted:
        return f"Try: keep {named(wanted[0])} for the backward pass, as {who} does."
    return "Try: compare your rows with the policy's in the residual table."
