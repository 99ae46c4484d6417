"""Attacks: a rule weaker than its statement (issue 10, item 6).

Keeps products of at most 300 elements (a round number above the limit): the statement's limit is 256, and the
judge of f4a8146 had no case with a result between 257 and 271 elements, so a threshold off by up
to 15 passed.
"""
import math


def small_dots(prim, *input_types, **params):
    if prim.name != "dot_general":
        return False
    lhs, rhs = input_types
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    batch = [lhs.shape[i] for i in lhs_batch]
    lhs_free = [n for i, n in enumerate(lhs.shape) if i not in lhs_contract and i not in lhs_batch]
    rhs_free = [n for i, n in enumerate(rhs.shape) if i not in rhs_contract and i not in rhs_batch]
    return math.prod(batch + lhs_free + rhs_free) <= 300
