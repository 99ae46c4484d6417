"""Problem packages: a folder with ``problem.toml``, the statement, starter, reference and the
packaged submissions that prove the checker (see README, "Authoring a problem"). This is the model
a loaded package becomes; ``package_loader`` reads and validates one, ``package_hash`` names its
bytes, ``limits`` holds what its child may use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, make_dataclass
from pathlib import Path

from ..data.specs import ArraySpec
from ..data.verdicts import POLICY_VIOLATION, WRONG_ANSWER
from .checks import COST, RESIDUALS, Section
from .limits import Limits

SLUG = re.compile(r"^[a-z0-9_]+$")


IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


REQUIRED_FILES = ("problem.toml", "statement.md", "starter.py", "reference.py")


DIFFICULTIES = ("easy", "medium", "hard")


DEVICES = ("cpu", "gpu")


# What a problem's leaderboard may rank by, lowest first: figures of an accepted report that
# compare strategies (XLA's estimates and the grading time are shown, never ranked).
RANKING_METRICS = ("residual_bytes", "flops", "peak_bytes")


DEFAULT_RANKING = ("residual_bytes", "flops")


@dataclass(frozen=True)
class Arg:
    name: str
    spec: ArraySpec | None  # None for a static (Python value) argument
    init: str = "normal"
    scale: float = 1.0
    default: object = None

    @property
    def static(self) -> bool:
        return self.spec is None


@dataclass(frozen=True)
class Case:
    name: str
    sample: bool
    seed: int
    dims: dict
    static: dict
    # Figures only: the case's arrays are placeholders of their types (``judge.data.shape_messages``),
    # never drawn or run; its residuals, structure and cost are judged, its values are not (the
    # other cases compare them). A model's real sizes, measured in the time of a toy's.
    figures_only: bool = False


@dataclass(frozen=True)
class StructureRules:
    policy: tuple | None = None  # canonical, see policy_names
    policy_text: str | None = None
    encloses: tuple[str, ...] = ()
    min_checkpoints: int | None = None
    max_checkpoints: int | None = None
    allow_custom_vjp: bool = False
    prevent_cse: bool | None = None
    min_depth: int | None = None
    prevent_cse_in_loops: bool | None = None
    prevent_cse_outside_loops: bool | None = None


def _rules(name: str, section: Section, doc: str, **namespace) -> type:
    """The frozen dataclass of a section's checks: one field per declared key, its default the
    declared one (``ResidualRules(max_count=2).max_count``)."""
    fields = [(c.key, object, field(default=c.default)) for c in section.checks]
    made = make_dataclass(name, fields, frozen=True, namespace={"__doc__": doc, **namespace})
    made.__module__ = __name__  # where pickle finds it
    return made


# [checks.residuals], each key's meaning in ``checks.RESIDUALS``.
ResidualRules = _rules("ResidualRules", RESIDUALS, "What a submission may save, as [checks.residuals] sets it.")


# [checks.cost], each key's meaning in ``checks.COST``.
CostRules = _rules(
    "CostRules",
    COST,
    "What a gradient step may cost, as [checks.cost] sets it.",
    # whether a case's cost must be measured at all
    active=property(lambda self: any(getattr(self, c.key) not in (None, False) for c in COST.checks)),
)


@dataclass(frozen=True)
class Problem:
    path: Path
    slug: str
    uuid: str
    title: str
    difficulty: str
    tags: tuple[str, ...]
    device: str
    entry: str
    args: tuple[Arg, ...]
    wrt: tuple[str, ...]
    cases: tuple[Case, ...]
    rtol: float
    atol: float
    residual_rules: ResidualRules
    structure_rules: StructureRules
    limits: Limits
    statement: str
    starter: str
    reference: str
    hints: tuple[str, ...] = ()
    explanation: str = ""
    harness: str = ""  # trusted code that calls the learner's function, e.g. a policy, on programs
    cost_rules: CostRules = field(default_factory=CostRules)
    ranking: tuple[str, ...] = DEFAULT_RANKING  # the leaderboard's metrics, most important first
    content_hash: str = ""
    submissions: dict = field(default_factory=dict)  # verdict -> list of Paths
    # [remat3]: the verdicts packaged files get under JAX_REMAT3=true where they differ from their
    # folder's ({path in the package: verdict}), and why (``judge.validate`` reads them).
    remat3_expected: dict = field(default_factory=dict)
    remat3_reason: str = ""

    @property
    def samples(self) -> tuple[Case, ...]:
        return tuple(c for c in self.cases if c.sample)

    @property
    def wrt_indices(self) -> tuple[int, ...]:
        names = [a.name for a in self.args]
        return tuple(names.index(n) for n in self.wrt)

    def signature(self) -> str:
        return f"{self.entry}({', '.join(a.name for a in self.args)})"

    def verdicts_to_prove(self) -> tuple[str, ...]:
        """The verdicts this problem's rules can give to code that runs, each of which a packaged
        submission should get so that validation proves the checker gives it: ``policy_violation``
        first (catching it is what the site is for) wherever a residual, structure or cost rule
        could fail; then ``wrong_answer``, which every problem's values and gradients can give."""
        checks_how = (
            self.residual_rules != ResidualRules(match_reference=False)
            or self.structure_rules != StructureRules()
            or self.cost_rules != CostRules()
        )
        return ((POLICY_VIOLATION,) if checks_how else ()) + (WRONG_ANSWER,)
