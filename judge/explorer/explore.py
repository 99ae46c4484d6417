"""The policy explorer: one learner's function, every checkpoint policy JAX ships, and what each costs.

The learner gives a source, the name of a function in it and the dtypes and shapes of its
arguments; no argument is ever made. The judge runs it once, through the same gate, sandboxed
child and verifier as a grading, by types (``judge.grading.shapes_pipeline``), with one case per
*plan* (``explore_plans``): a case's only difference is a static argument naming the plan, which
a trusted harness (``explore_harness.HARNESS``, the judge's code, not the learner's) reads to wrap
the learner's function in ``jax.checkpoint(fn, policy=...)`` (or to call it as written). The child
traces every plan in one process and exports one program holding them all; the verifier measures
each plan's gradient step apart (``judge.inspection.program_cost``), so every figure here is one
a verdict would rest on: residual bytes and their memories from the verified program's types, the
step's peak and FLOPs from the verifier's walk of it. The verifier also compiles each plan's step
alone and reads XLA's memory and cost analysis of it (the compiled peak, beside the walk's).
Nothing the child says about itself is counted.

The names a plan may save or offload are those the source labels with ``checkpoint_name`` and a
string literal, read from the source text by the parent (never run, ``explore_source``); a name
computed at run time is not offered.

A name that the source does not define with ``def`` (``model = eqx.filter_eval_shape(MLP, ...)``)
is first described by the submission's child (``shapes_pipeline.describe``): a module of Equinox
or Flax NNX is explored as its call, its parameters (its floating-point array leaves, their types
as the child reads them) the first arguments and the ones differentiated, the shapes given the
call's inputs; the harness puts them back into the module (``explore_harness``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data import verdicts
from ..data.evidence import DEVICE
from ..data.shape_messages import FUNCTION, ModuleDescribed
from ..data.specs import ArraySpec, SpecError, short_type
from ..grading import pipeline, shapes_pipeline
from ..packages.limits import Limits
from ..packages.package import Arg, Case, CostRules, Problem, ResidualRules, StructureRules
from ..runners.boundary import Runner
from ..source import Source
from . import loops as explore_loops
from . import rewrite_check as explore_rewrite_check
from .function_reading import (
    MAX_NAMES,
    default_function,
    defines_function,
    labelled_names,
    parameter_names,
    scanned_block,
)
from .harness import HARNESS
from .plans import AS_WRITTEN, BLOCKS, POLICY_ARG, SEGMENT_SIZES, Plan, placement_code, plans
from .rows import (
    BUDGET_MEASURES,
    HELD,
    PEAK,
    Exploration,
    Row,
    cheapest_within,
    mark_frontier,
    memory,
    render,
)

__all__ = [
    "BUDGET_MEASURES",
    "HELD",
    "PEAK",
    "Exploration",
    "Row",
    "cheapest_within",
    "mark_frontier",
    "memory",
    "render",
    "AS_WRITTEN",
    "BLOCKS",
    "HARNESS",
    "MAX_NAMES",
    "SEGMENT_SIZES",
    "Plan",
    "default_function",
    "labelled_names",
    "parameter_names",
    "placement_code",
    "plans",
    "scanned_block",
]

# No argument is made, sent or run: plans are traced, lowered and compiled from types. What bounds
# an exploration is the sandbox's time and memory for that work (``LIMITS``: tracing every plan
# in the child, then walking and compiling them in the verifier) and the time compiling each plan
# alone for XLA's analysis may take (``COMPILE_S``; plans past it keep the walk's figures). The
# bound on sizes only keeps every count of bytes far inside 64-bit integers: 2^40 elements.
MAX_ELEMENTS = 1 << 40
MAX_ARGS = 8
LIMITS = Limits(wall_s=300.0, cpu_s=300, memory_mb=6144)
COMPILE_S = 150.0


class ExploreError(ValueError):
    """Input the explorer cannot use: the message says what to change."""


# ---------------------------------------------------------------------------- the parent's reading


def parse_args(specs: list[str], extra_elements: int = 0) -> list[ArraySpec]:
    """The learner's argument types; ``extra_elements``: what a module's parameters hold besides."""
    if not specs:
        raise ExploreError("give the shape of each argument, such as f32[64,128]")
    if len(specs) > MAX_ARGS:
        raise ExploreError(f"at most {MAX_ARGS} arguments")
    parsed = []
    for text in specs:
        try:
            spec = ArraySpec.parse(text.strip())
        except SpecError as exc:
            raise ExploreError(f"{text!r}: {exc}") from None
        if spec.symbols():
            raise ExploreError(f"{text!r}: give concrete sizes, such as f32[8,16]")
        if not spec.dtype.startswith(("float", "bfloat")):
            raise ExploreError(f"{text!r}: the explorer differentiates every argument, so each must be floating point")
        parsed.append(spec)
    total = _elements(parsed) + extra_elements
    if total > MAX_ELEMENTS:
        held = "the arguments and the module's parameters" if extra_elements else "the arguments"
        raise ExploreError(f"{held} hold {total} elements together; the explorer takes at most {MAX_ELEMENTS}")
    return parsed


def _elements(specs: list[ArraySpec]) -> int:
    return sum(int(np.prod(s.shape({}), dtype=object)) for s in specs)


@dataclass
class _Module:
    """A module's call as the explorer runs it: its parameters first, then the call's inputs."""

    library: str
    names: list[str]  # the parameters' names: the module's name and the leaf's path
    specs: list[ArraySpec]
    inputs: list[str]  # the call's inputs, by name

    @classmethod
    def of(cls, function: str, described: ModuleDescribed) -> _Module:
        specs = [ArraySpec.parse(short_type(p.array.dtype, p.array.shape)) for p in described.parameters]
        return cls(described.library, [function + p.path for p in described.parameters], specs, described.inputs)

    def listed(self) -> list[str]:
        return [f"{n} {short_type(s.dtype, s.shape({}))}" for n, s in zip(self.names, self.specs)]


def _describe(source: Source, function: str, runner: Runner, limits: Limits) -> ModuleDescribed | None:
    """What ``function`` stands for, when the source does not define it with ``def``: read by the
    submission's child; None for a plain callable (``f = jax.jit(g)``)."""
    if defines_function(source, function):
        return None
    described = shapes_pipeline.describe(source.text, function, runner, limits)
    if isinstance(described, tuple):
        verdict, message = described
        if verdict == verdicts.COMPILE_ERROR and "is not defined" in message:
            raise ExploreError(
                f"the source defines no {function}: name a function it defines, or a module of Equinox or "
                f"Flax NNX built at its top level (such as model = eqx.filter_eval_shape(MLP, ...))"
            )
        if verdict == verdicts.COMPILE_ERROR:  # the child's own sentence: what the name is instead
            raise ExploreError(message)
        raise ExploreError(_failure(verdict, message, limits))
    return described


def _problem(
    function: str, arg_names: list[str], specs: list[ArraySpec], chosen: list[Plan], limits: Limits, wrt: list[str]
) -> Problem:
    """A problem of the judge's making around the learner's function: one case per plan."""
    args = (Arg(POLICY_ARG, None),) + tuple(Arg(n, s) for n, s in zip(arg_names, specs))
    cases = tuple(Case(f"plan-{i}", False, 1, {}, {POLICY_ARG: p.key}) for i, p in enumerate(chosen))
    return Problem(
        path=Path("."),
        slug="explore",
        uuid="",
        title="explore",
        difficulty="",
        tags=(),
        device="cpu",
        entry=function,
        args=args,
        wrt=tuple(wrt),
        cases=cases,
        rtol=0.0,
        atol=0.0,
        residual_rules=ResidualRules(),
        structure_rules=StructureRules(),
        limits=limits,
        statement="",
        starter="",
        reference="",
        harness=HARNESS,
        # an active cost rule makes the verifier measure every case's step, without the
        # second compilation for XLA's own estimates that ``pipeline.run(cost=True)`` adds
        cost_rules=CostRules(saves_memory=True),
    )


# ---------------------------------------------------------------------------- the exploration


def _check_request(function: str, specs: list[str], budget: int | None, budget_on: str) -> None:
    """What is wrong with a request before anything runs: ``ExploreError``."""
    if not function.isidentifier():
        raise ExploreError(f"{function!r} is not a function name")
    if budget is not None and budget <= 0:
        raise ExploreError("the budget is a number of bytes above zero")
    if budget_on not in BUDGET_MEASURES:
        raise ExploreError(f"the budget is on one of {', '.join(BUDGET_MEASURES)}, not {budget_on!r}")
    parse_args(specs)


def _arguments(source: Source, function: str, specs: list[str], described, module, wrt: list[str] | None):
    """The arguments' types as given, their names (a module's parameters first) and the names
    differentiated: a module's parameters unless ``wrt`` names others; ``ExploreError`` for a
    name that is not an argument."""
    if module is not None:
        parsed = parse_args(specs, _elements(module.specs))
        inputs = module.inputs[: len(parsed)] + [f"x{i}" for i in range(len(module.inputs), len(parsed))]
        arg_names = module.names + inputs
    else:
        parsed = parse_args(specs)
        arg_names = (
            described.inputs[: len(parsed)]
            if described is not None and len(described.inputs) >= len(parsed)
            else parameter_names(source, function, len(parsed))
        )
    if wrt is None and module is not None:
        wrt = list(module.names)  # a module's parameters, as training differentiates them
    elif wrt is not None:
        unknown = [name for name in wrt if name not in arg_names]
        if unknown or not wrt:
            raise ExploreError(
                f"differentiate some of the arguments {', '.join(arg_names)}"
                + (f", not {', '.join(unknown)}" if unknown else "")
            )
    return parsed, arg_names, wrt


def _python_loop(source: Source, function: str, module, runner: Runner):
    """With no scan, a Python loop over blocks (a module's in its class's __call__), rewritten so
    that the harness can place checkpoints in it; None where there is none, or where the gate reads
    the rewrite otherwise than the learner's source (it then runs as written)."""
    loop = (
        explore_loops.find(source, function, calls=True) if module is not None else explore_loops.find(source, function)
    )
    if loop is not None and pipeline.admit(loop.rewritten, runner):
        return None
    return loop


def explore(
    source: str,
    function: str,
    specs: list[str],
    runner: Runner,
    *,
    budget: int | None = None,
    limits: Limits | None = None,
    offload: bool = True,
    budget_on: str = HELD,
    wrt: list[str] | None = None,
    compile_s: float = COMPILE_S,
) -> Exploration:
    """Every plan of ``function`` measured as a verdict measures it, from the arguments' types
    alone; ``ExploreError`` for input it cannot use (a refused source among them, with the gate's
    message). ``wrt``: the arguments differentiated, by name (when None, all of them, or a
    module's parameters), as a problem's ``[gradients]`` names them. ``compile_s``: how long compiling the plans one by one
    for XLA's analysis may take in all (0: not compiled, the walk's figures only)."""
    _check_request(function, specs, budget, budget_on)
    read = Source(source)  # the one reading of the learner's text: the gate's and every reader's below
    refused = pipeline.admit(read, runner)
    if refused:
        verdict, message = refused
        raise ExploreError(f"{verdicts.DESCRIPTIONS.get(verdict, verdict)}: {message}")
    limits = limits or LIMITS
    names = labelled_names(read)
    described = _describe(read, function, runner, limits)
    module = _Module.of(function, described) if described and described.library != FUNCTION else None
    parsed, arg_names, wrt = _arguments(read, function, specs, described, module, wrt)
    block = scanned_block(read)
    loop = None if block is not None else _python_loop(read, function, module, runner)
    found = Exploration(function, [s.strip() for s in specs], names, budget=budget, budget_on=budget_on)
    fixed = module.specs if module is not None else []  # a module's parameters keep their sizes
    if module is not None:
        found.library, found.parameters = module.library, module.listed()
    if loop is not None and _elements(fixed) <= explore_rewrite_check.RUN_ELEMENTS:
        differentiated = list(wrt or arg_names)
        differs = explore_rewrite_check.rewrite_differs(
            source,
            loop,
            parsed,
            lambda sizes: _problem(function, arg_names, fixed + sizes, [Plan(AS_WRITTEN)], limits, differentiated),
            differentiated,
            runner,
        )
        if differs:
            found.notes.append(
                f"Your loop at line {loop.line} is measured as written, without placements inside it: "
                f"rewritten as one turn per block, it computed other values ({differs})."
            )
            loop = None
    chosen = plans(names, offload, blocks=block is not None or loop is not None)
    problem = _problem(function, arg_names, fixed + parsed, chosen, limits, list(wrt or arg_names))
    ran = loop.rewritten if loop is not None else source
    outcome = shapes_pipeline.run(problem, ran, problem.cases, runner, compile_s=compile_s)
    if outcome.failure is not None:
        raise ExploreError(_failure(*outcome.failure, limits))
    by_name = {c.name: c for c in outcome.cases}
    for case, plan in zip(problem.cases, chosen):
        traced = by_name.get(case.name)
        if traced is None or traced.error is not None or traced.cost is None:
            why = traced.error.text() if traced is not None and traced.error is not None else "not measured"
            if plan.kind == AS_WRITTEN:  # the function itself fails: nothing else can be told
                raise ExploreError(why)
            found.failed.append({"plan": plan.label, "message": why})
            continue

        device = sum(r.bytes for r in traced.residual_types if r.memory == DEVICE)
        found.rows.append(
            Row(
                plan.label,
                plan.kind,
                list(plan.names),
                plan.code(function, block or "block", loop, found.library),
                device,
                sum(r.bytes for r in traced.residual_types if r.memory != DEVICE),
                len(traced.residual_types),
                int(traced.cost.peak_bytes or 0),
                int(traced.cost.held_peak_bytes or 0),
                float(traced.cost.flops or 0.0),
                0.0,
                compiled_peak_bytes=traced.cost.xla_peak_bytes,
                compiled_flops=traced.cost.xla_flops,
            )
        )
    if found.rows and found.rows[0].kind == AS_WRITTEN:
        base = found.rows[0].flops
        for row in found.rows:
            row.recomputed_flops = max(row.flops - base, 0.0)
    mark_frontier(found.rows)
    found.best = cheapest_within(found.rows, budget, budget_on)
    return found


def _failure(verdict: str, message: str, limits: Limits) -> str:
    if verdict == verdicts.TIME_LIMIT:
        return (
            f"{verdict}: tracing and compiling every plan took more than the explorer's {limits.cpu_s:g} s "
            "of CPU; explore fewer blocks (the placements compare as well on four as on forty), or a block alone"
        )
    if verdict == verdicts.MEMORY_LIMIT:
        return (
            f"{verdict}: tracing and compiling every plan needed more than the explorer's "
            f"{limits.memory_mb} MiB; explore fewer blocks, or a block alone"
        )
    return f"{verdict}: {message}"
