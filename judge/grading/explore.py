"""The policy explorer: one learner's function, every checkpoint policy JAX ships, and what each costs.

The learner gives a source, the name of a function in it and the shapes of its arguments. The
judge runs it once, through the same gate, sandboxed child and verifier as a grading
(``judge.grading.pipeline``), with one case per *plan*: a case's only difference is a static argument
naming the plan, which a trusted harness (``HARNESS``, the judge's code, not the learner's) reads
to wrap the learner's function in ``jax.checkpoint(fn, policy=...)`` (or to call it as written).
The child traces every plan in one process and exports one program holding them all; the
verifier measures each plan's gradient step apart (``judge.inspection.program_cost``), so every
figure here is one a verdict would rest on: residual bytes and their memories from the verified
program's types, the step's peak and FLOPs from the verifier's walk of it. Nothing the child says
about itself is counted.

The names a plan may save or offload are those the source labels with ``checkpoint_name`` and a
string literal, read from the source text by the parent (never run); a name computed at run time
is not offered.
"""

from __future__ import annotations

import ast
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..data import syntax, verdicts
from ..data.evidence import DEVICE
from ..data.specs import ArraySpec, SpecError
from ..packages.limits import Limits
from ..packages.package import Arg, Case, CostRules, Problem, ResidualRules, StructureRules
from ..runners.boundary import Runner
from . import explore_loops, pipeline

# Within the site's limits: the arguments together, and how many names get a plan of their own.
# Every plan is a case of its own, but the plans share their inputs, which a request then carries
# once (``protocol.encode``), and the verifier reads each plan's figures from the programs without
# running them: no hidden inputs go, no gradients come back (``pipeline.run(numbers=False)``).
# What bounds the arguments is a request's cap (64 MiB, ``judge.in_child.child``): 8 Mi elements (32 MiB
# of float32) make 43 MiB of base64, with room for the programs. A GPT-2 small block (7.1 Mi
# weights) fits.
MAX_ELEMENTS = 1 << 23
MAX_ARGS = 8
MAX_NAMES = 6
AS_WRITTEN = "as written"
POLICY_ARG = "__plan"
HELD, PEAK = "held", "peak"
BUDGET_MEASURES = {
    HELD: "bytes kept on the device between the passes",
    PEAK: "the step's peak bytes",
}

# The judge's own code, run in the child next to the learner's: it applies a plan by name. Only
# JAX's own policy objects are used, so the child's reading recognises them as JAX's.
HARNESS = (
    """
import math

import jax

_cp = jax.checkpoint_policies
_scan = jax.lax.scan  # bound before the learner's function runs: the harness's own scan


def _policy(kind, names):
    plain = {"everything_saveable": _cp.everything_saveable, "nothing_saveable": _cp.nothing_saveable,
             "dots_saveable": _cp.dots_saveable, "dots_with_no_batch_dims_saveable": _cp.dots_with_no_batch_dims_saveable}
    if kind in plain:
        return plain[kind]
    if kind == "save_only_these_names":
        return _cp.save_only_these_names(*names)
    if kind == "save_any_names_but_these":
        return _cp.save_any_names_but_these(*names)
    if kind == "offload_dot_with_no_batch_dims":
        return _cp.offload_dot_with_no_batch_dims("device", "pinned_host")
    if kind == "save_and_offload_only_these_names":
        return _cp.save_and_offload_only_these_names(names_which_can_be_saved=(), names_which_can_be_offloaded=names,
                                                     offload_src="device", offload_dst="pinned_host")
    raise ValueError("unknown plan " + kind)


def _blocks(xs, length):
    if length is not None:
        return length
    return jax.tree_util.tree_leaves(xs)[0].shape[0]


def _split(xs, start, stop, k):
    # blocks start..stop of the stack, as (stop - start) // k segments of k
    return jax.tree_util.tree_map(lambda a: a[start:stop].reshape((stop - start) // k, k, *a.shape[1:]), xs)


def _segments(f, init, xs, length, k, inner, kw):
    # the stack in segments of k blocks (the last one shorter when k does not divide it), each
    # segment one checkpoint; inner: every block inside a segment a checkpoint of its own too
    n = _blocks(xs, length)
    body = jax.checkpoint(f) if inner else f
    k = max(1, min(k, n))
    whole = (n // k) * k  # the blocks in whole segments; the rest, if any, one shorter segment

    def segment(size):
        return jax.checkpoint(lambda carry, part: _scan(body, carry, part, length=size, **kw))

    order = [(0, whole, k), (whole, n, n - whole)] if not kw.get("reverse") else [(whole, n, n - whole), (0, whole, k)]
    carry, pieces = init, {}
    for start, stop, size in order:
        if stop == start:
            continue
        part = None if xs is None else _split(xs, start, stop, size)
        carry, y = _scan(segment(size), carry, part, length=(stop - start) // size, reverse=kw.get("reverse", False))
        pieces[start] = jax.tree_util.tree_map(lambda a: a.reshape(-1, *a.shape[2:]), y)
    parts = [pieces[s] for s in sorted(pieces)]
    ys = parts[0] if len(parts) == 1 else jax.tree_util.tree_map(lambda *a: jax.numpy.concatenate(a), *parts)
    return carry, ys


def _placed(placement):
    # jax.lax.scan as the learner's outermost scans see it during this plan's trace
    depth = [0]

    def scan(f, init, xs=None, length=None, **kw):
        if depth[0]:  # a scan inside a block: the block's own business
            return _scan(f, init, xs, length, **kw)
        depth[0] += 1
        try:
            if placement == "every":
                return _scan(jax.checkpoint(f), init, xs, length, **kw)
            n = _blocks(xs, length)
            if placement == "nested":
                return _segments(f, init, xs, length, max(1, round(math.sqrt(n))), True, kw)
            return _segments(f, init, xs, length, int(placement), False, kw)
        finally:
            depth[0] -= 1

    return scan


def _unjitted(learner):
    # a jitted function keeps the trace of its first call, the plan as written: under a placement
    # the function it wraps is called instead (inside the gradient step the jit changes nothing)
    try:
        return learner.__dict__.get("__wrapped__") or learner
    except AttributeError:
        return learner


def _namespace(learner):
    try:
        return learner.__globals__
    except AttributeError:
        return {}


def _scan_owners(namespace):
    # where the learner's module finds scan: itself (scan imported alone), or the views of jax and
    # jax.lax it imported (a submission's modules are views of its own, see judge.in_child.guard)
    owners = [namespace]
    for value in list(namespace.values()):
        if isinstance(value, type(math)):
            owners.append(value.__dict__)
            inner = value.__dict__.get("lax")
            if isinstance(inner, type(math)):
                owners.append(inner.__dict__)
    return [(owner, key) for owner in owners for key, value in list(owner.items()) if value is _scan]


def run(learner, plan, *arrays):
    kind, _, names = plan.partition(":")
    # a loop the parent rewrote calls arena_chain: the turns as written, or placed (explore_loops)
    _namespace(_unjitted(learner))["arena_chain"] = _chain(names if kind == "blocks" else None)
    if kind == "as written":
        return learner(*arrays)
    if kind == "blocks":
        learner = _unjitted(learner)
        owners = _scan_owners(_namespace(learner))
        for owner, key in owners:
            owner[key] = _placed(names)
        try:
            return learner(*arrays)
        finally:
            for owner, key in owners:
                owner[key] = _scan
    return jax.checkpoint(learner, policy=_policy(kind, tuple(n for n in names.split(",") if n)))(*arrays)
"""
    + explore_loops.HARNESS
)


class ExploreError(ValueError):
    """Input the explorer cannot use: the message says what to change."""


BLOCKS = "blocks"  # a plan that places checkpoints in the learner's scan over its blocks
SEGMENT_SIZES = (2, 3, 4)  # "every k blocks": a few k, the sizes a stack of a dozen blocks splits into


@dataclass(frozen=True)
class Plan:
    kind: str  # AS_WRITTEN, BLOCKS or a name in jax.checkpoint_policies
    names: tuple[str, ...] = ()
    placement: str = ""  # BLOCKS only: "every", a segment size such as "3", or "nested"

    @property
    def key(self) -> str:
        if self.kind == BLOCKS:
            return f"{BLOCKS}:{self.placement}"
        return f"{self.kind}:{','.join(self.names)}"

    @property
    def label(self) -> str:
        if self.kind == BLOCKS:
            return {
                "every": "checkpoint every block",
                "nested": "nested: sqrt(N) segments, every block in them",
            }.get(self.placement, f"checkpoint every {self.placement} blocks")
        return self.kind if not self.names else f"{self.kind}({', '.join(repr(n) for n in self.names)})"

    @property
    def offloads(self) -> bool:
        return self.kind.startswith(("offload", "save_and_offload"))

    def code(self, function: str, block: str = "block", loop: explore_loops.Loop | None = None) -> str:
        """The change that applies the plan to ``function`` (``block``: the function its scan
        runs; ``loop``: its Python loop over blocks, where it has one instead)."""
        if self.kind == AS_WRITTEN:
            return f"{function}  # as written: no checkpoint added"
        if self.kind == BLOCKS:
            return explore_loops.placement_code(self.placement, loop) if loop else placement_code(self.placement, block)
        cp = "jax.checkpoint_policies"
        names = ", ".join(repr(n) for n in self.names)
        policy = {
            "save_only_these_names": f"{cp}.save_only_these_names({names})",
            "save_any_names_but_these": f"{cp}.save_any_names_but_these({names})",
            "offload_dot_with_no_batch_dims": f'{cp}.offload_dot_with_no_batch_dims("device", "pinned_host")',
            "save_and_offload_only_these_names": (
                f"{cp}.save_and_offload_only_these_names(names_which_can_be_saved=(), names_which_can_be_offloaded="
                f'({names},), offload_src="device", offload_dst="pinned_host")'
            ),
        }.get(self.kind, f"{cp}.{self.kind}")
        return f"jax.checkpoint({function}, policy={policy})"


def placement_code(placement: str, block: str) -> str:
    """The scan over the blocks rewritten for a placement, in the learner's terms (``h`` the
    carry, ``layers`` the stacked weights: the learner's own names are theirs to put back)."""
    if placement == "every":
        return f"h, ys = jax.lax.scan(jax.checkpoint({block}), h, layers)"
    nested = placement == "nested"
    inner = f"jax.checkpoint({block})" if nested else block
    lines = ["k = round(math.sqrt(n_blocks))  # blocks per segment" if nested else f"k = {placement}"]
    lines += [
        "",
        "@jax.checkpoint",
        "def segment(h, part):  # k blocks, rebuilt together on the way back",
        f"    return jax.lax.scan({inner}, h, part)",
        "",
        "# (with a number of blocks k does not divide, run the rest as one more segment)",
        "parts = jax.tree.map(lambda a: a.reshape(-1, k, *a.shape[1:]), layers)",
        "h, ys = jax.lax.scan(segment, h, parts)",
    ]
    return "\n".join(lines)


@dataclass
class Row:
    plan: str
    kind: str
    names: list[str]
    code: str
    held_bytes: int  # residuals on the device, between the forward and the backward pass
    host_bytes: int  # residuals an offloading plan keeps in host memory
    residuals: int
    peak_bytes: int  # the gradient step's peak, inputs included
    held_peak_bytes: int  # saved and recomputed values the backward pass holds at once
    flops: float
    recomputed_flops: float  # above the function as written: the work done again
    dominated: bool = False

    @classmethod
    def from_dict(cls, data: dict) -> Row | None:
        """A stored row read back; None for one this judge cannot read (written by another)."""
        try:
            return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})
        except TypeError:
            return None


@dataclass
class Exploration:
    function: str
    args: list[str]
    names: list[str]  # what the source labels with checkpoint_name
    rows: list[Row] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)  # plans that did not run: {"plan", "verdict", "message"}
    budget: int | None = None
    best: Row | None = None  # the cheapest plan within the budget
    budget_on: str = HELD  # what the budget is compared with: HELD or PEAK
    notes: list[str] = field(default_factory=list)  # what the explorer did otherwise than asked, and why

    def to_dict(self) -> dict:
        return {
            "notes": self.notes,
            "function": self.function,
            "args": self.args,
            "names": self.names,
            "budget": self.budget,
            "budget_on": self.budget_on,
            "rows": [asdict(r) for r in self.rows],
            "failed": self.failed,
            "best": self.best.plan if self.best is not None else None,
        }


# ---------------------------------------------------------------------------- the parent's reading


def parse_args(specs: list[str]) -> list[ArraySpec]:
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
    total = sum(int(np.prod(s.shape({}), dtype=np.int64)) for s in parsed)
    if total > MAX_ELEMENTS:
        raise ExploreError(f"the arguments hold {total} elements together; the explorer takes at most {MAX_ELEMENTS}")
    return parsed


def labelled_names(source: str) -> list[str]:
    """The string literals the source passes to ``checkpoint_name`` (read, never run)."""
    found = []
    try:
        tree = syntax.parse(source)
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if callee != "checkpoint_name":
            continue
        literal = (
            node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "name"), None)
        )
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str) and literal.value not in found:
            found.append(literal.value)
    return found[:MAX_NAMES]


def parameter_names(source: str, function: str, count: int) -> list[str]:
    """The function's own parameter names, read from its source without running it."""
    try:
        for node in ast.walk(syntax.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name == function:
                names = [a.arg for a in node.args.posonlyargs + node.args.args]
                if len(names) >= count:
                    return names[:count]
    except SyntaxError:
        pass
    return [f"arg{i}" for i in range(count)]


def scanned_block(source: str) -> str | None:
    """What the source's first ``jax.lax.scan`` runs (its first argument, as written), or None if
    the source calls no scan: then no placement plan is tried. Read from the text, never run; the
    harness places checkpoints in every outermost scan the function really calls."""
    try:
        tree = syntax.parse(source)
    except SyntaxError:
        return None
    bare = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "jax.lax"
        for alias in node.names
        if alias.name == "scan"
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        called = (
            isinstance(func, ast.Attribute)
            and func.attr == "scan"
            and ast.unparse(func.value).split(".")[-1] == "lax"
            or isinstance(func, ast.Name)
            and func.id in bare
        )
        if called:
            return ast.unparse(node.args[0])
    return None


def plans(names: list[str], offload: bool = True, blocks: bool = False) -> list[Plan]:
    """Every plan tried: the function as written, each policy JAX ships that takes no arguments,
    and, per labelled name, saving only it and saving all but it (and all of them, offloaded);
    for a function that scans over its blocks (or loops over them in Python, ``explore_loops``),
    checkpoints placed in that scan or loop: every block, segments of a few blocks, and segments
    of sqrt(N) with every block inside checkpointed too.
    (No placement is the function as written, for a scan whose blocks have no checkpoint.)
    ``save_anything_except_these_names`` is left out: in JAX 0.10.2 it drops its names and saves
    everything, the same row as everything_saveable."""
    found = [Plan(AS_WRITTEN)] + [
        Plan(k)
        for k in ("everything_saveable", "nothing_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable")
    ]
    for name in names:
        found += [Plan("save_only_these_names", (name,)), Plan("save_any_names_but_these", (name,))]
    if len(names) > 1:
        found.append(Plan("save_only_these_names", tuple(names)))
    if offload:
        found.append(Plan("offload_dot_with_no_batch_dims"))
        if names:
            found.append(Plan("save_and_offload_only_these_names", tuple(names)))
    if blocks:
        found += [Plan(BLOCKS, placement=p) for p in ("every", *map(str, SEGMENT_SIZES), "nested")]
    return found


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
) -> Exploration:
    """Every plan of ``function`` measured as a verdict measures it; ``ExploreError`` for input it
    cannot use (a refused source among them, with the gate's message). ``wrt``: the arguments
    differentiated, by name (all of them when None), as a problem's ``[gradients]`` names them."""
    if not function.isidentifier():
        raise ExploreError(f"{function!r} is not a function name")
    if budget is not None and budget <= 0:
        raise ExploreError("the budget is a number of bytes above zero")
    if budget_on not in BUDGET_MEASURES:
        raise ExploreError(f"the budget is on one of {', '.join(BUDGET_MEASURES)}, not {budget_on!r}")
    parsed = parse_args(specs)
    refused = pipeline.admit(source, runner)
    if refused:
        verdict, message = refused
        raise ExploreError(f"{verdicts.DESCRIPTIONS.get(verdict, verdict)}: {message}")
    names = labelled_names(source)
    arg_names = parameter_names(source, function, len(parsed))
    if wrt is not None:
        unknown = [name for name in wrt if name not in arg_names]
        if unknown or not wrt:
            raise ExploreError(
                f"differentiate some of the arguments {', '.join(arg_names)}"
                + (f", not {', '.join(unknown)}" if unknown else "")
            )
    block = scanned_block(source)
    # no scan: a Python loop over blocks, rewritten so that the harness can place checkpoints in it
    loop = explore_loops.find(source, function) if block is None else None
    if loop is not None and pipeline.admit(loop.rewritten, runner):
        loop = None  # the gate read the rewrite otherwise than the learner's source: run it as written
    limits = limits or Limits(wall_s=60.0, cpu_s=60)
    found = Exploration(function, [s.strip() for s in specs], names, budget=budget, budget_on=budget_on)
    if loop is not None:
        differs = _rewrite_differs(source, loop, function, arg_names, parsed, limits, list(wrt or arg_names), runner)
        if differs:
            found.notes.append(
                f"Your loop at line {loop.line} is measured as written, without placements inside it: "
                f"rewritten as one turn per block, it computed other values ({differs})."
            )
            loop = None
    chosen = plans(names, offload, blocks=block is not None or loop is not None)
    problem = _problem(function, arg_names, parsed, chosen, limits, list(wrt or arg_names))
    ran = loop.rewritten if loop is not None else source
    outcome = pipeline.run(problem, ran, problem.cases, runner, salt=secrets.randbits(62), numbers=False)
    if outcome.failure is not None:
        raise ExploreError(f"{outcome.failure[0]}: {outcome.failure[1]}")
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
                plan.code(function, block or "block", loop),
                device,
                sum(r.bytes for r in traced.residual_types if r.memory != DEVICE),
                len(traced.residual_types),
                int(traced.cost.peak_bytes or 0),
                int(traced.cost.held_peak_bytes or 0),
                float(traced.cost.flops or 0.0),
                0.0,
            )
        )
    if found.rows and found.rows[0].kind == AS_WRITTEN:
        base = found.rows[0].flops
        for row in found.rows:
            row.recomputed_flops = max(row.flops - base, 0.0)
    mark_frontier(found.rows)
    found.best = cheapest_within(found.rows, budget, budget_on)
    return found


def _rewrite_differs(
    source: str,
    loop: explore_loops.Loop,
    function: str,
    arg_names: list[str],
    parsed: list[ArraySpec],
    limits: Limits,
    wrt: list[str],
    runner: Runner,
) -> str:
    """Whether the loop rewritten for placements computes what the loop as written computes: both
    run as written on the same generated inputs, and the verifier's values and gradients compared.
    The static reading of the loop (``explore_loops``) is a model; this is what the program does.
    What differs, in a few words; "" when nothing does (or when neither could run: the plans say why)."""
    problem = _problem(function, arg_names, parsed, [Plan(AS_WRITTEN)], limits, wrt)
    salt = secrets.randbits(62)
    written, rewritten = (
        pipeline.run(problem, text, problem.cases, runner, salt=salt) for text in (source, loop.rewritten)
    )
    if written.failure is not None or not written.cases or written.cases[0].error is not None:
        return ""
    if rewritten.failure is not None:
        return f"it failed: {rewritten.failure[1]}"
    if not rewritten.cases or rewritten.cases[0].error is not None:
        return f"it failed: {rewritten.cases[0].error.text()}" if rewritten.cases else "it did not run"
    mine, theirs = rewritten.cases[0], written.cases[0]
    labelled = [("the output", g, w) for g, w in zip(mine.value, theirs.value)]
    labelled += [(f"the gradient with respect to {n}", g, w) for n, g, w in zip(wrt, mine.grads, theirs.grads)]
    if len(mine.value) != len(theirs.value) or len(mine.grads) != len(theirs.grads):
        return "the output has another structure"
    for label, got, want in labelled:
        got, want = np.asarray(got), np.asarray(want)
        # Overflowing values (a deep stack on generated inputs) compare as equal where both overflow alike.
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
            return f"{label} differs"
    return ""


def memory(row: Row, on: str = HELD) -> int:
    """The figure a budget is compared with: what a plan keeps on the device between the passes
    (``held``), or the most the whole step holds at once (``peak``): where checkpoints go in a
    chain of blocks shows in the peak, which counts what the backward pass rebuilds."""
    return row.peak_bytes if on == PEAK else row.held_bytes


def _costs(row: Row) -> tuple:
    # host memory counts too: an offloading plan frees the device at the price of the host's;
    # and the peak: checkpointing the whole function holds least between the passes, but rebuilds
    # everything at once, where a checkpoint per block rebuilds one block at a time
    return row.held_bytes, row.host_bytes, row.peak_bytes, row.flops


def mark_frontier(rows: list[Row]) -> None:
    """A row is dominated when another is no worse in held device memory, host memory, peak and
    FLOPs, and better in one of them."""
    for row in rows:
        mine = _costs(row)
        row.dominated = any(all(a <= b for a, b in zip(_costs(o), mine)) and _costs(o) != mine for o in rows)


def default_function(source: str) -> str | None:
    """The last function the source defines at its top level: the one a learner usually means."""
    try:
        defined = [n.name for n in syntax.parse(source).body if isinstance(n, ast.FunctionDef)]
    except SyntaxError:
        return None
    return defined[-1] if defined else None


def render(found: Exploration) -> str:
    """The exploration as the command line prints it."""
    from . import text

    headers = ["", "plan", "held (device)", "held (host)", "peak", "FLOPs", "recomputed FLOPs"]
    rows = [
        [
            "*" if r is found.best else ("-" if r.dominated else ""),
            r.plan,
            r.held_bytes,
            r.host_bytes or "",
            r.peak_bytes,
            f"{r.flops:.4g}",
            f"{r.recomputed_flops:.4g}",
        ]
        for r in found.rows
    ]
    lines = [
        f"{found.function}({', '.join(found.args)}): {len(found.rows)} plans, measured on the verified program",
        text.table(headers, rows),
        "",
        "-: dominated (another plan holds no more on the device or the host, peaks no higher and computes no more)",
    ]
    for failure in found.failed:
        lines.append(f"{failure['plan']}: did not run: {failure['message']}")
    lines += found.notes
    if found.budget is not None:
        if found.best is None:
            lines.append(f"no plan fits {found.budget} bytes ({BUDGET_MEASURES[found.budget_on]})")
        else:
            lines += [
                f"*: the cheapest plan within {found.budget} bytes ({BUDGET_MEASURES[found.budget_on]}): {found.best.plan}",
                *(f"    {line}" if line else "" for line in found.best.code.splitlines()),
            ]
    return "\n".join(lines)


def cheapest_within(rows: list[Row], budget: int | None, on: str = HELD) -> Row | None:
    """The plan that fits the budget (``on``: the figure compared with it) with the least work;
    between equals, the one that moves least to the host (a transfer each way), then the one that
    holds least. None if none fits."""
    if budget is None:
        return None
    fits = [r for r in rows if memory(r, on) <= budget]
    return min(fits, key=lambda r: (r.flops, r.host_bytes, memory(r, on), r.peak_bytes)) if fits else None
