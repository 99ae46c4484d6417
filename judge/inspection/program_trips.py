"""How many times a counted loop of the lowered program runs (a ``stablehlo.while`` made by a
``lax.scan`` or a ``fori_loop`` with fixed bounds), which the verifier's cost walk
(``program_cost``) multiplies its body by; ``loop_trips`` reads the same from a jaxpr."""

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
    """The iterations of a counted loop (``lax.scan``, ``fori_loop`` with fixed bounds): an integer
    carried from a constant, stepped by a constant in the body, compared with a constant in the
    condition. None for any other loop."""
    cond, body = (region.blocks[0] for region in op.regions)
    cond_ops = list(cond.operations)
    compare = [o for o in cond_ops if o.operation.name == "stablehlo.compare"]
    if len(compare) != 1:
        return None
    test = compare[0]
    direction = str(test.attributes["comparison_direction"]).split()[-1].rstrip(">").lower()
    left, right = test.operands
    args = list(cond.arguments)
    if left not in args or _constant(right) is None:
        return None
    index = args.index(left)
    bound = _constant(right)
    start = _constant(op.operands[index])
    body_out = list(body.operations)[-1].operands[index]
    step_op = body_out.owner
    if start is None or _name(step_op) != "stablehlo.add":
        return None
    a, b = step_op.operands
    step = _constant(b) if a == body.arguments[index] else _constant(a) if b == body.arguments[index] else None
    if not step or step <= 0:
        return None
    if direction == "lt":
        return max(0, -(-(bound - start) // step))
    if direction == "le":
        return max(0, -(-(bound + 1 - start) // step))
    if direction == "ne" and (bound - start) % step == 0:
        return max(0, (bound - start) // step)
    return None
