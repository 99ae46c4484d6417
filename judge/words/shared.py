"""What every cause's wording shares: the kinds of cause, the ``Cause`` itself, how a checkpoint of
the problem's function is written (``Form``), the small phrases each module words its sentences
with (a line, a policy as the learner writes it, a residual by its name), and the residual rows
grouped by the expression of the learner's code that made them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..data import policy_names
from ..data.evidence import ResidualRow
from ..data.verdicts import CauseKind
from ..packages.package import Problem, StructureRules

# The kinds of cause, declared once with the verdicts' vocabulary (``judge.data.verdicts``).
NO_CHECKPOINT, HAND_WRITTEN, POLICY, OUTSIDE = (
    CauseKind.NO_CHECKPOINT,
    CauseKind.HAND_WRITTEN,
    CauseKind.POLICY,
    CauseKind.OUTSIDE,
)
STRUCTURE, NAMES, BYTES, COST = CauseKind.STRUCTURE, CauseKind.NAMES, CauseKind.BYTES, CauseKind.COST


@dataclass(frozen=True)
class Cause:
    kind: CauseKind
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
    equinox = "filter_checkpoint" in problem.reference and not JAX_CHECKPOINT.search(problem.reference)
    return Form(
        call="eqx.filter_checkpoint" if equinox else "jax.checkpoint",
        static=tuple((i, arg.name) for i, arg in enumerate(problem.args) if arg.static),
    )


# A checkpoint as JAX spells it (not jax.checkpoint_policies, nor jax.checkpoint_name)
JAX_CHECKPOINT = re.compile(r"\bjax\.checkpoint\b(?!_)")


# How a cause about the figures begins, before its reason (``cost.figured`` puts the figure there)
OVER = "Your gradient step holds more memory at once than this problem allows: "
RECOMPUTES = "Your gradient step recomputes more than this problem allows: "


def at(line) -> str:
    return f" (line {line})" if line else ""


def spelled(rules: StructureRules) -> str:
    """The required policy as the learner would write it in their code."""
    text = policy_names.render(rules.policy)
    return f"jax.checkpoint_policies.{text}"


def policy_keyword(rules: StructureRules) -> str:
    """ ", policy=..." as the learner would add it to a checkpoint call, where the problem requires one."""
    return f", policy={spelled(rules)}" if rules.policy is not None else ""


def and_lines(checkpoints) -> str:
    """ " (lines 14 and 16)"; "" where no line is known (decorators are traced at none of the learner's)."""
    lines = [str(c.line) for c in checkpoints if c.line]
    if len(lines) < 2:
        return f" (line {lines[0]})" if lines else ""
    return f" (lines {', '.join(lines[:-1])} and {lines[-1]})"


# A value made by no line of the learner's (the reference's, or one JAX makes), by what made it.
_MADE_BY = {"dot_general": "the result of a matrix product", "scan carry": "the scan's carry at every step"}


def named(row: ResidualRow) -> str:
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
