"""How many times a ``while`` loop runs, where its program shows it: a counter that starts from a
constant, is stepped by a constant and compared with a bound fixed for the whole loop."""

from __future__ import annotations

import numpy as np

from .jax_internals import jex_core

_COMPARISONS = {"lt", "le", "gt", "ge", "ne"}


def trip_count(eqn, cond, body) -> int | None:
    if len(cond.eqns) != 1 or cond.eqns[0].primitive.name not in _COMPARISONS:
        return None
    test = cond.eqns[0]
    carry = list(cond.invars[eqn.params["cond_nconsts"] :])
    init = list(eqn.invars[eqn.params["cond_nconsts"] + eqn.params["body_nconsts"] :])
    body_carry = list(body.invars[eqn.params["body_nconsts"] :])

    def known(atom):
        """The value of a comparison operand that is fixed for the whole loop, if the program shows it."""
        if isinstance(atom, jex_core.Literal):
            return atom.val
        if atom in carry:
            index = carry.index(atom)
            passed_on = body.outvars[index] is body_carry[index]
            if passed_on and isinstance(init[index], jex_core.Literal):
                return init[index].val
        return None

    left, right = test.invars
    for counter, bound, flipped in ((left, right, False), (right, left, True)):
        if counter not in carry or not np.issubdtype(counter.aval.dtype, np.integer) or known(bound) is None:
            continue
        index = carry.index(counter)
        start, step = init[index], _step(body, body_carry[index], body.outvars[index])
        if not isinstance(start, jex_core.Literal) or step is None:
            continue
        return _iterations(test.primitive.name, flipped, int(start.val), int(known(bound)), step)
    return None


def _step(body, before, after) -> int | None:
    """The constant a loop counter is stepped by in the body (``after = before + step``), if any."""
    for made in body.eqns:
        if made.outvars[0] is after and made.primitive.name in ("add", "sub"):
            a, b = made.invars
            if a is before and isinstance(b, jex_core.Literal):
                return int(b.val) if made.primitive.name == "add" else -int(b.val)
            if b is before and isinstance(a, jex_core.Literal) and made.primitive.name == "add":
                return int(a.val)
    return None


def _iterations(comparison: str, flipped: bool, start: int, bound: int, step: int) -> int | None:
    if flipped:  # `bound < counter` is `counter > bound`
        comparison = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "ne": "ne"}[comparison]
    if step == 0:
        return None
    if comparison == "ne":
        distance = bound - start
        return distance // step if distance % step == 0 and distance // step >= 0 else None
    if comparison in ("le", "ge"):
        bound += 1 if comparison == "le" else -1
        comparison = comparison[0] + "t"
    if (comparison == "lt") != (step > 0):
        return 0 if (comparison == "lt" and start >= bound) or (comparison == "gt" and start <= bound) else None
    return max(0, -(-(bound - start) // step) if step > 0 else -(-(start - bound) // -step))
