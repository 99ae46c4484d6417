"""The residual and cost checks a problem may declare, each declared once, here.

A check is its key in ``problem.toml`` (``[checks.residuals]`` or ``[checks.cost]``), the type and
default the loader reads, what an author reads about it (the authoring form's label and help, the
table in docs/authors/package.md), the form's widget, and for a limit the function that enforces it
on one case's figures, returning the sentence a learner reads. From ``SECTIONS`` come the loader's
reading (``package_loader``), the rules' dataclasses (``package.ResidualRules``, ``CostRules``), the
enforcement (``grading.trusted`` and ``grading.rules.check_cost``), the authoring form and its page,
and the docs' table (``docs_table``; a test fails when the page says something else).

A limit is enforced on figures the judge measured itself (the verifier's count of what a program
saves, the cost of the program it compiled), never on what the submission's child reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..data import library_calls
from ..data.evidence import Cost, Structure
from .package_reader import Table, strings

RESIDUAL_KINDS = ("argument", "named", "primitive", "constant", "literal")

# How the authoring form asks for a value: a checkbox, a short text field for an integer (of
# bytes, or a count) or a number, boxes to tick among ``choices``, names separated by commas.
WIDGETS = ("flag", "bytes", "count", "number", "choices", "names")


@dataclass(frozen=True)
class Saving:
    """What one case's program saves for the backward pass on the device, as the verifier counted
    it, and the reference's on the same case."""

    count: int
    bytes: int
    reference_count: int
    reference_bytes: int


@dataclass(frozen=True)
class Spending:
    """One case's gradient step as the verifier measured it, the reference's on the same case (None
    where it has none), and the structure that places a sentence in the learner's code (empty
    where the child's report is not believed: it words, it never decides)."""

    cost: Cost
    reference: Cost | None
    structure: Structure


class Overrun(str):
    """A limit's sentence that is a figure over it, as text, with the figures themselves: the
    cause of a policy_violation (``judge.words``) states them in its own sentence."""

    measured: float
    allowed: float

    def __new__(cls, text: str, measured: float, allowed: float) -> "Overrun":
        problem = super().__new__(cls, text)
        problem.measured, problem.allowed = measured, allowed
        return problem


@dataclass(frozen=True, eq=False)  # a check is itself, as the structure checks are
class Check:
    section: str  # its table: [checks.<section>]
    key: str
    kind: type | tuple[type, ...]  # the TOML value's Python type(s)
    default: object  # None or False: the check is off
    label: str  # the authoring form's
    help: str  # what an author reads: under the form's field and in the docs' table
    widget: str  # one of WIDGETS
    # (the problem's value, the case's figures) -> the learner's sentence, or None within the limit;
    # None for a check enforced residual by residual (``grading.rules.check_residuals``) or a setting.
    enforce: Callable[[object, object], str | None] | None = None
    hidden: str = ""  # the sentence on a hidden case, which must not tell its figures
    choices: tuple[str, ...] = ()
    valid: Callable[[object], bool] | None = None  # beyond the type
    expected: str = ""  # the loader's words for a value that is not valid

    @property
    def dotted(self) -> str:
        return f"checks.{self.section}.{self.key}"

    def read(self, table: Table):
        """The value ``table`` gives this key (a list as a tuple); a wrong one is noted in the
        table's errors with the file and the key, and read as the default."""
        value = table.get(self.key, self.kind, self.default, check=self.valid, expected=self.expected)
        return tuple(value) if isinstance(value, list) else value

    def told(self, rules, figures) -> str | None:
        """The learner's sentence when ``figures`` break this check as ``rules`` set it."""
        value = getattr(rules, self.key)
        if self.enforce is None or value is None or value is False:
            return None
        return self.enforce(value, figures)


@dataclass(frozen=True)
class Section:
    name: str  # [checks.<name>]
    legend: str  # the heading of its fields on the authoring page
    checks: tuple[Check, ...]


def enforced(section: Section, rules, figures) -> list[tuple[Check, str]]:
    """The checks of ``section`` that ``figures`` break, each with its sentence, in the order declared."""
    return [(check, told) for check in section.checks if (told := check.told(rules, figures)) is not None]


# ---------------------------------------------------------------------------- residuals


def _at_most_reference(_, s: Saving) -> str | None:
    if s.count <= s.reference_count and s.bytes <= s.reference_bytes:
        return None
    return (
        f"your program saves {s.count} values ({s.bytes} bytes) for the backward pass; the required "
        f"checkpointing saves {s.reference_count} ({s.reference_bytes} bytes), and yours may not save more"
    )


def _max_bytes(limit: int, s: Saving) -> str | None:
    if s.bytes <= limit:
        return None
    return f"your program saves {s.bytes} bytes for the backward pass; at most {limit} are allowed"


def _max_count(limit: int, s: Saving) -> str | None:
    if s.count <= limit:
        return None
    return f"your program saves {s.count} values for the backward pass; at most {limit} are allowed"


RESIDUALS = Section(
    "residuals",
    "Residual rules",
    (
        Check(
            "residuals",
            "match_reference",
            bool,
            True,
            "Same residuals as the reference",
            "what the submission saves must match what the reference saves (kinds, types, names, and the "
            "memory each is kept in)",
            "flag",
        ),
        Check(
            "residuals",
            "at_most_reference",
            bool,
            False,
            "No more residuals than the reference",
            "no more values, and no more bytes, saved on the device than the reference saves on the same case",
            "flag",
            _at_most_reference,
            "your program saves more for the backward pass than the required checkpointing",
        ),
        Check(
            "residuals",
            "max_bytes",
            int,
            None,
            "At most bytes",
            "the most bytes of residuals kept on the device, on every case",
            "bytes",
            _max_bytes,
            "your program saves more bytes for the backward pass than this problem allows",
        ),
        Check(
            "residuals",
            "max_count",
            int,
            None,
            "At most residuals",
            "the most values saved on the device for the backward pass, on every case",
            "count",
            _max_count,
            "your program saves more values for the backward pass than this problem allows",
        ),
        Check(
            "residuals",
            "allowed_kinds",
            list,
            None,
            "Kinds that may be saved",
            "the only kinds of residual that may be saved; none: any kind",
            "choices",
            choices=RESIDUAL_KINDS,
            valid=lambda v: strings(v) and set(v) <= set(RESIDUAL_KINDS),
            expected=f"a list drawn from {', '.join(RESIDUAL_KINDS)}",
        ),
        Check(
            "residuals",
            "allowed_primitives",
            list,
            None,
            "Primitives whose outputs may be saved",
            "the only operations whose outputs may be saved, e.g. dot_general; empty: any",
            "names",
            valid=strings,
            expected="a list of primitive names",
        ),
        # The problem is about rebuilding such values in the backward pass: otherwise they are
        # part of the program, and no policy decides whether they are kept.
        Check(
            "residuals",
            "constants",
            bool,
            False,
            "Constants count as saved",
            "values that do not depend on the inputs (a table built with numpy, a jnp.arange outside the "
            "checkpoint) count as saved: compared with the reference's and counted in the limits",
            "flag",
        ),
    ),
)


# ---------------------------------------------------------------------------- cost


def _max_peak_bytes(limit: int, s: Spending) -> str | None:
    if s.cost.peak_bytes <= limit:
        return None
    return Overrun(
        f"your gradient step peaks at {s.cost.peak_bytes} bytes alive at once; at most {limit} are allowed",
        s.cost.peak_bytes,
        limit,
    )


def _max_flops(limit: float, s: Spending) -> str | None:
    if s.cost.uncounted_loops:  # a lower bound: a FLOP limit cannot be shown to hold
        return (
            f"your gradient step runs a while_loop whose number of trips the program does not show: counted "
            f"with one trip it needs {s.cost.flops:.0f} FLOPs, a lower bound, where at most {limit:.0f} "
            f"are allowed"
        )
    if s.cost.opaque_calls:  # their work is not in the program: a FLOP limit cannot be shown to hold
        return (
            f"your gradient step calls {library_calls.listed(s.cost.opaque_calls)}, whose work the judge "
            f"cannot count from your program: without it the step needs {s.cost.flops:.0f} FLOPs, where at "
            f"most {limit:.0f} are allowed in all; this problem needs no such call, so write the step with "
            f"jnp's arithmetic and matrix products"
        )
    if s.cost.flops <= limit:
        return None
    return Overrun(
        f"your gradient step needs {s.cost.flops:.0f} FLOPs; at most {limit:.0f} are allowed (too much recomputation)",
        s.cost.flops,
        limit,
    )


def _saves_memory(_, s: Spending) -> str | None:
    """Whether the step holds less than the same computation holds without any checkpoint: the
    reference's program without its checkpoints, measured by the judge (a submission's child is
    never asked what its own program would hold: it could say anything)."""
    plain = s.reference.plain_held_peak_bytes if s.reference is not None else None
    if plain is None or s.cost.held_peak_bytes < plain:  # None: the reference defines its own derivative
        return None
    where = ", ".join(f"line {c.line}" for c in s.structure.checkpoints if c.on_path is not False and c.line)
    return (
        f"your jax.checkpoint{f' ({where})' if where else ''} saves no memory: the backward pass recomputes it "
        f"while it still holds everything else it kept ({s.cost.held_peak_bytes} bytes of saved and recomputed "
        f"values at once; {plain} without any checkpoint); checkpoint an earlier stage instead"
    )


def _held_at_most_reference(_, s: Spending) -> str | None:
    if s.reference is None or s.cost.held_peak_bytes <= s.reference.held_peak_bytes:
        return None
    return (
        f"your backward pass holds up to {s.cost.held_peak_bytes} bytes of saved and recomputed values "
        f"at once; the reference holds at most {s.reference.held_peak_bytes} on this case, and yours "
        f"may not hold more"
    )


_COST_HIDDEN = "your gradient step costs more (memory held at once, or FLOPs) than this problem allows"

# In the order a learner is told: the peak first (a budget is about memory, and a step over
# both budgets is told that first), then FLOPs, then what the backward pass holds.
COST = Section(
    "cost",
    "Memory and FLOPs",
    (
        Check(
            "cost",
            "max_peak_bytes",
            int,
            None,
            "At most peak bytes",
            "the most bytes one whole gradient step holds alive at once, on every case",
            "bytes",
            _max_peak_bytes,
            _COST_HIDDEN,
        ),
        Check(
            "cost",
            "max_flops",
            (int, float),
            None,
            "At most FLOPs",
            "the most FLOPs one whole gradient step needs, recomputation included, on every case",
            "number",
            _max_flops,
            _COST_HIDDEN,
        ),
        Check(
            "cost",
            "saves_memory",
            bool,
            False,
            "The checkpoints must save memory",
            "measured: the backward pass must hold less at once, saved and recomputed values, than the same "
            "program without its checkpoints",
            "flag",
            _saves_memory,
            _COST_HIDDEN,
        ),
        Check(
            "cost",
            "held_at_most_reference",
            bool,
            False,
            "No more memory held than the reference",
            "what the backward pass holds at once, saved and recomputed values, no more than the reference "
            "holds, case by case",
            "flag",
            _held_at_most_reference,
            _COST_HIDDEN,
        ),
    ),
)

SECTIONS = (RESIDUALS, COST)
CHECKS = tuple(check for section in SECTIONS for check in section.checks)


# ---------------------------------------------------------------------------- the docs' table


_VALUES = {
    "flag": "true or false",
    "bytes": "integer (bytes)",
    "count": "integer",
    "number": "number",
    "names": "list of names",
}


def _value_words(check: Check) -> str:
    if check.widget == "choices":
        return "list drawn from " + ", ".join(f"`{c}`" for c in check.choices)
    return _VALUES[check.widget]


def _default_words(check: Check) -> str:
    if check.default is None:
        return "not set"
    return f"`{str(check.default).lower()}`"


def docs_table() -> str:
    """The table of the residual and cost checks in docs/authors/package.md, made from ``SECTIONS``."""
    lines = ["| key | value | default | meaning |", "| --- | --- | --- | --- |"]
    for check in CHECKS:
        lines.append(
            f"| `[checks.{check.section}] {check.key}` | {_value_words(check)} | {_default_words(check)} | "
            f"{check.help} |"
        )
    return "\n".join(lines) + "\n"
