import math

_LIMIT = 256


def _result_size(lhs, rhs, dimension_numbers):
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    batch = [lhs.shape[i] for i in lhs_batch]
    lhs_free = [n for i, n in enumerate(lhs.shape) if i not in lhs_contract and i not in lhs_batch]
    rhs_free = [n for i, n in enumerate(rhs.shape) if i not in rhs_contract and i not in rhs_batch]
    return math.prod(batch + lhs_free + rhs_free)


def small_dots(prim, *input_types, **params):
    if prim.name != "dot_general":
        return False
    lhs, rhs = input_types
    return _result_size(lhs, rhs, params["dimension_numbers"]) < _LIMIT
