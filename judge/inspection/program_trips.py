"""How many times a counted loop of the lowered program runs (a ``stablehlo.while`` made by a
``lax.scan``, a ``fori_loop`` with fixed bounds or a ``while_loop`` over a counter), which the
verifier's cost walk (``program_cost``) multiplies its body by."""

from __future__ import annotations

import numpy as np

from .jax_internals import mlir_ir as ir


def _rank(value) -> int:
    try:
        return len(ir.RankedTensorType(value.type).shape)
    except ValueError:  # a token or a tuple: no array
        return 0


def _constant(value) -> int | None:
    owner = value.owner
    if _name(owner) == "stablehlo.constant":
        try:
            data = ir.DenseElementsAttr(owner.attributes["value"])
            if data.is_splat:
                return int(str(data.get_splat_value()).split(":")[0].strip())
            return int(np.asarray(ir.DenseIntElementsAttr(data))[()]) if not _rank(value) else None
        except (ValueError, TypeError):
            return None
    return None


def _name(owner) -> str:
    """The operation's name (an operation, or its view); "" for a block's argument."""
    owner = getattr(owner, "operation", owner)
    return getattr(owner, "name", "") if not hasattr(owner, "arguments") else ""


def trip_count(op) -> int | None:
    """The iterations of a counted loop (``lax.scan``, ``fori_loop`` with fixed bounds, a
    ``while_loop`` over a counter, upwards or downwards): an integer carried from a constant,
    stepped by a constant in the body (added or subtracted) and compared, on either side, with a
    constant in the condition. None for any other loop."""
    cond, body = (region.blocks[0] for region in op.regions)
    compare = [o for o in cond.operations if o.operation.name == "stablehlo.compare"]
    if len(compare) != 1 or "UNSIGNED" in str(compare[0].attributes.get("compare_type", "")):
        return None
    test = compare[0]
    direction = str(test.attributes["comparison_direction"]).split()[-1].rstrip(">").lower()
    args = list(cond.arguments)
    for counter, bound, flipped in (
        (test.operands[0], test.operands[1], False),
        (test.operands[1], test.operands[0], True),
    ):
        if counter not in args or _constant(bound) is None:
            continue
        index = args.index(counter)
        start, step = _constant(op.operands[index]), _step(body, index)
        if start is None or step is None:
            continue
        return _iterations(direction, flipped, start, _constant(bound), step)
    return None


def _step(body, index: int) -> int | None:
    """The constant the body steps its ``index``-th carried value by (``after = before + step``,
    or ``before - step``), if it does."""
    before, after = body.arguments[index], list(body.operations)[-1].operands[index]
    stepped = after.owner
    if _name(stepped) not in ("stablehlo.add", "stablehlo.subtract"):
        return None
    a, b = stepped.operands
    if a == before and _constant(b) is not None:
        return _constant(b) if _name(stepped) == "stablehlo.add" else -_constant(b)
    if b == before and _constant(a) is not None and _name(stepped) == "stablehlo.add":
        return _constant(a)
    return None


def _iterations(comparison: str, flipped: bool, start: int, bound: int, step: int) -> int | None:
    """How many times ``counter <comparison> bound`` holds as the counter goes ``start``,
    ``start + step``...: None when it would hold for ever (the step moves away from the bound)."""
    if flipped:  # `bound < counter` is `counter > bound`
        comparison = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "ne": "ne", "eq": "eq"}[comparison]
    if step == 0 or comparison == "eq":
        return None
    if comparison == "ne":
        distance = bound - start
        return distance // step if distance % step == 0 and distance // step >= 0 else None
    if comparison in ("le", "ge"):
        bound += 1 if comparison == "le" else -1
        comparison = comparison[0] + "t"
    if (comparison == "lt") != (step > 0):  # moving away: it runs never, or for ever
        return 0 if (comparison == "lt" and start >= bound) or (comparison == "gt" and start <= bound) else None
    return max(0, -(-(bound - start) // step) if step > 0 else -(-(start - bound) // -step))
