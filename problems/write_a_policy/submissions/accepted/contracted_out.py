import math


def small_dots(prim, *types, **params):
    """Result elements = all elements of both operands, minus contracted and repeated batch axes."""
    if prim.name != "dot_general":
        return False
    lhs, rhs = types
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    keep_lhs = [n for i, n in enumerate(lhs.shape) if i not in lc]
    keep_rhs = [n for i, n in enumerate(rhs.shape) if i not in rc and i not in rb]
    return math.prod(keep_lhs) * math.prod(keep_rhs) <= 256
