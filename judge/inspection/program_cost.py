"""The cost of one case's gradient step, read in the verifier from the program it compiled.

The verifier lowers the forward and backward programs the child exported (deserialized: no
submitted code runs there) into one StableHLO module, ``main(inputs, cotangents) -> (outputs,
gradients)``. This module walks that module, for the results of one case only (whatever no
result of the case needs is left out, as XLA's dead-code elimination leaves it out), and counts:

* ``flops``: every operation that runs, once: matrix products and convolutions two per
  multiply-add (a convolution's taps on its padding or on a dilated input's holes multiply
  nothing), reductions one per element combined, any other arithmetic one per element it
  makes, data movement nothing; a call (a ``jax.jit`` inside the submission) by the function it
  calls, a loop its body per iteration (the count read from the loop, else one), a conditional
  its most expensive branch. ``lax.ragged_dot`` is lowered to a product over every group: it
  counts as XLA runs it.
* ``peak_bytes``: the most bytes alive at once while the step runs in order, inputs included. A
  value lives from the operation that makes it to its last use; a call or a loop adds, while it
  runs, its own peak above its operands (its results counted once, inside it);
  ``optimization_barrier`` and ``reshape`` make no new buffer.
* ``held_peak_bytes``: the most bytes of saved and recomputed values alive at once in the backward
  program: residuals, and what it makes from them and not from the cotangent. Residuals that are
  the inputs themselves, or depend on no input, are left out (the same whatever is checkpointed).

XLA's own memory analysis is not used: on CPU its figures do not move with rematerialization
(measured on memory_budget_transformer's submissions: the same temp bytes with no checkpoint and
with one around the whole network), and it merges a recomputation with the forward pass when the
two are compiled together.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from . import operation_flops
from .jax_internals import mlir_ir as ir
from .program_trips import trip_count

# Operations that apply a function of their own (a region) many times, which their rule counts
# (``operation_flops``): a reduction's combiner, a scatter's update, a sort's comparison. A learner
# writes the first three (``lax.reduce``, ``lax.reduce_window``, ``lax.scatter_apply`` take any
# function), so each application costs what the function runs: counted as one operation, a combiner
# of forty made a reduction cost a fortieth of what XLA counts. Every function's loops and library
# calls are reported as anywhere else.
APPLIED_BY_COST = {"stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.scatter"}
APPLIED = APPLIED_BY_COST | {"stablehlo.sort", "stablehlo.select_and_scatter"}
# Operations whose results are their operands' buffers under another type.
ALIASING = {"stablehlo.optimization_barrier", "stablehlo.reshape"}


def _bytes(value) -> int:
    try:
        t = ir.RankedTensorType(value.type)
    except ValueError:
        return 0
    element = t.element_type
    try:
        width = 2 * ir.ComplexType(element).element_type.width
    except (ValueError, TypeError):
        width = getattr(element, "width", None) or _width(element)
    return math.prod(t.shape) * max(width // 8, 1)


def _width(element) -> int:
    """Bits of an element type the bindings give no width for (a float type's, by its name)."""
    text = str(element)
    digits = "".join(ch for ch in text.split("E")[0] if ch.isdigit())
    return int(digits) if digits else 32


# Operations that run a function of the module: a call, and a composite (``lax.composite``), whose
# decomposition is what runs where no backend has a kernel of its own for it (none here): it costs
# what its function costs, never one operation per element.
CALLS = ("func.call", "call", "stablehlo.composite")


def _callee(op) -> str:
    attribute = "decomposition" if op.operation.name == "stablehlo.composite" else "callee"
    return str(op.attributes[attribute]).lstrip("@").strip('"')


@dataclass
class Found:
    flops: float = 0.0
    above: int = 0  # most bytes alive at once above the block's arguments
    start: int = 0  # the bytes of its arguments
    outputs: list | None = None  # per result: its flags
    uncounted: int = 0  # while loops whose trips the program does not show: counted as one trip each
    opaque: frozenset = frozenset()  # targets of library calls whose work the program does not show


class Walk:
    """The walks over one lowered module; functions by name, walked once per (needed results, flags)."""

    def __init__(self, module):
        self.functions = {
            str(op.attributes["sym_name"]).strip('"'): op
            for op in module.body.operations
            if op.operation.name == "func.func"
        }
        self._needed: dict = {}
        self._walked: dict = {}
        self.called: dict = {}  # function name -> (needed results, flags of its operands), as last called

    # ------------------------------------------------------------------ which values are needed

    def needed_args(self, name: str, needed: tuple[bool, ...]) -> tuple[bool, ...]:
        key = (name, needed)
        if key not in self._needed:
            block = self.functions[name].regions[0].blocks[0]
            live = self._live(block, needed)
            self._needed[key] = tuple(a in live[1] for a in block.arguments)
        return self._needed[key]

    def _live(self, block, needed: tuple[bool, ...]):
        """The operations of ``block`` that its needed results depend on, with the values they use
        and, per call, which of its results are needed."""
        ops = list(block.operations)
        terminator = ops[-1]
        used = {v for v, n in zip(terminator.operands, needed) if n}
        live, calls = [], {}
        for op in reversed(ops[:-1]):
            wanted = tuple(r in used for r in op.results)
            if not any(wanted):
                continue
            live.append(op)
            if op.operation.name in CALLS:
                calls[op] = wanted
                args = self.needed_args(_callee(op), wanted)
                used.update(v for v, n in zip(op.operands, args) if n)
            else:
                used.update(op.operands)
                for region in op.regions:  # values a region uses from outside it
                    for inner in region.blocks:
                        used.update(_outer_uses(inner))
        return live[::-1], used, calls

    # ------------------------------------------------------------------ the walk

    def function(self, name: str, needed: tuple[bool, ...], flags: tuple, weigh) -> Found:
        key = (name, needed, flags, weigh.__name__)
        if key not in self._walked:
            self._walked[key] = self.block(self.functions[name].regions[0].blocks[0], needed, list(flags), weigh)
        return self._walked[key]

    def block(self, block, needed: tuple[bool, ...], arg_flags: list, weigh) -> Found:
        """``arg_flags``: per argument, its flags (a frozenset of "t": from the cotangent, "r":
        from a real input, "i": an input itself); ``weigh(value, flags)``: the bytes it counts."""
        ops, used, calls = self._live(block, needed)
        terminator = list(block.operations)[-1]
        flags = {a: f for a, f in zip(block.arguments, arg_flags)}
        buffer, size = {}, {}
        for a in block.arguments:
            buffer[a] = a
            size[a] = weigh(a, flags[a]) if a in used else 0
        last = {}
        for index, op in enumerate(ops):
            for v in _all_uses(op):
                last[v] = index
        for v, n in zip(terminator.operands, needed):
            if n:
                last[v] = len(ops)
        # a buffer lives until the last use of any of its names
        current = sum(size.values())
        start = current
        peak, flops, uncounted, opaque = current, 0.0, 0, frozenset()
        alive = {a for a in block.arguments if size[a]}
        until = {}  # buffer -> last use
        ending = defaultdict(list)  # index -> buffers whose last use it was, when last set

        def extend(v, buf):
            until[buf] = max(until.get(buf, -1), last.get(v, -1))
            ending[until[buf]].append(buf)

        for a in block.arguments:
            extend(a, a)
        for index, op in enumerate(ops):
            name = op.operation.name
            ins = [flags.get(v, frozenset()) for v in op.operands]
            joined = frozenset().union(*ins) - {"i"} if ins else frozenset()
            if name in CALLS:
                wanted = calls[op]
                self.called[_callee(op)] = (wanted, tuple(ins))
                inner = self.function(_callee(op), wanted, tuple(ins), weigh)
                flops, uncounted, opaque = flops + inner.flops, uncounted + inner.uncounted, opaque | inner.opaque
                outs = inner.outputs
            elif op.regions and name not in APPLIED:
                inner, outs = self._control(op, ins, weigh)
                flops, uncounted, opaque = flops + inner.flops, uncounted + inner.uncounted, opaque | inner.opaque
            else:
                # an aliasing operation's results are its operands, one for one
                inner, outs = None, ins if name in ALIASING else [joined] * len(op.results)
                applied = self._applied(op, joined, weigh) if name in APPLIED else None
                if applied is None:
                    flops += operation_flops.flops(op)
                else:  # its rule counts the applications of its function, which costs what it runs
                    flops += operation_flops.flops(op) * (max(applied.flops, 1.0) if name in APPLIED_BY_COST else 1.0)
                    uncounted, opaque = uncounted + applied.uncounted, opaque | applied.opaque
                if (
                    name == "stablehlo.custom_call"
                    and operation_flops.target(op) not in operation_flops.DATA_MOVEMENT_CALLS
                ):
                    opaque |= {operation_flops.target(op)}
            made = 0
            for k, r in enumerate(op.results):
                flags[r] = frozenset(outs[k]) if k < len(outs) else joined
                if r not in used:
                    continue
                if name in ALIASING and k < len(op.operands) and op.operands[k] in buffer:
                    buffer[r] = buffer[op.operands[k]]
                    extend(r, buffer[r])
                    continue
                buffer[r], size[r] = r, weigh(r, flags[r])
                extend(r, r)
                made += size[r]
            peak = max(peak, current + max(made, inner.above if inner is not None else 0))
            current += made
            made_here = [r for r in op.results if r in buffer and buffer[r] == r]
            alive.update(made_here)
            # freed: every live buffer whose last use this was (an alias may have moved it later)
            for buf in ending.pop(index, []) + made_here:
                if buf in alive and until.get(buf, -1) <= index:
                    alive.discard(buf)
                    current -= size.get(buf, 0)
            peak = max(peak, current)
        outputs = [flags.get(v, frozenset()) for v in terminator.operands]
        return Found(flops, max(peak - start, 0), start=start, outputs=outputs, uncounted=uncounted, opaque=opaque)

    def _applied(self, op, joined: frozenset, weigh) -> Found:
        """The function(s) an operation applies element by element (a reduction's combiner, a
        scatter's update, a sort's comparison), walked once: what one application runs."""
        found = [
            self.block(
                region.blocks[0],
                (True,) * len(list(region.blocks[0].operations)[-1].operands),
                [joined] * len(region.blocks[0].arguments),
                weigh,
            )
            for region in op.regions
        ]
        return Found(
            sum(f.flops for f in found),
            uncounted=sum(f.uncounted for f in found),
            opaque=frozenset().union(*(f.opaque for f in found)),
        )

    def _control(self, op, ins: list, weigh) -> tuple[Found, list]:
        """A loop (its body and condition per iteration) or a conditional (its costliest branch)."""
        name = op.operation.name
        joined = frozenset().union(*ins) - {"i"} if ins else frozenset()
        found = []
        for region in op.regions:
            block = region.blocks[0]
            n = len(block.arguments)
            arg_flags = [joined] * n if name != "stablehlo.while" else [f - {"i"} for f in ins[:n]]
            results = len(list(block.operations)[-1].operands)
            found.append(self.block(block, (True,) * results, arg_flags, weigh))
        above = max(f.above for f in found)
        uncounted = sum(f.uncounted for f in found)
        opaque = frozenset().union(*(f.opaque for f in found))
        if name == "stablehlo.while":
            trips = trip_count(op)
            if trips is None:  # a lower bound, and said so: a FLOP limit refuses it (``rules.check_cost``)
                trips, uncounted = 1, uncounted + 1
            cond, body = found
            flops = trips * (cond.flops + body.flops) + cond.flops
            outs = [a | b for a, b in zip(ins, body.outputs)]
            outs = [f - {"i"} for f in outs]
        else:
            flops = max(f.flops for f in found)
            outs = [joined] * len(op.results)
        return Found(flops, above, uncounted=uncounted, opaque=opaque), outs


def _outer_uses(block) -> set:
    """Values used inside ``block`` (nested regions included) that it does not define."""
    defined, used = set(block.arguments), set()
    for op in block.operations:
        used.update(op.operands)
        for region in op.regions:
            for inner in region.blocks:
                used.update(_outer_uses(inner))
        defined.update(op.results)
    return used - defined


def _all_uses(op) -> set:
    found = set(op.operands)
    for region in op.regions:
        for inner in region.blocks:
            found.update(_outer_uses(inner))
    return found


def _all_bytes(value, flags) -> int:
    return _bytes(value)


def _held_bytes(value, flags) -> int:
    return _bytes(value) if "r" in flags and "t" not in flags and "i" not in flags else 0


def case_cost(module, needed: list[bool], input_flags: list) -> dict:
    """The cost of one case's step in ``module``: ``main``'s results of the case marked in
    ``needed``; per argument of ``main``, its flags ({"r", "i"}: an input, {"t"}: a cotangent).
    The backward program is the function ``main`` calls with the cotangents: its held bytes are
    counted."""
    walk = Walk(module)
    main = walk.functions["main"].regions[0].blocks[0]
    cotangents = {a for a, f in zip(main.arguments, input_flags) if "t" in f}
    backward = next(
        (
            _callee(op)
            for op in main.operations
            if op.operation.name in CALLS and any(v in cotangents for v in op.operands)
        ),
        None,
    )
    found = walk.function("main", tuple(needed), tuple(frozenset(f) for f in input_flags), _all_bytes)
    figures = {"flops": float(found.flops), "peak_bytes": int(found.start + found.above)}
    if found.uncounted:
        figures["uncounted_loops"] = found.uncounted
    if found.opaque:
        figures["opaque_calls"] = sorted(found.opaque)
    if backward in walk.called:
        wanted, flags = walk.called[backward]
        held = walk.function(backward, wanted, flags, _held_bytes)
        figures["held_peak_bytes"] = int(held.start + held.above)
    return figures
