"""Legitimate: the limit written as ``< 257`` and the result's size computed by a different
route (all axes of both operands, minus contracted ones, minus the rhs batch axes).
"""
import math


def small_dots(prim, *types, **params):
    if prim.name != "dot_general":
        return False
    lhs, rhs = types
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    kept = [n for i, n in enumerate(lhs.shape) if i not in lc]
    kept += [n for i, n in enumerate(rhs.shape) if i not in rc and i not in rb]
    return math.prod(kept) < 257
