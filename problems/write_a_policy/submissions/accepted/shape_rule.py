def small_dots(prim, *types, **params):
    if prim.name != "dot_general":
        return False
    lhs, rhs = types
    (contract_l, contract_r), (batch_l, batch_r) = params["dimension_numbers"]
    size = 1
    for axis, n in enumerate(lhs.shape):
        if axis not in contract_l:
            size *= n
    for axis, n in enumerate(rhs.shape):
        if axis not in contract_r and axis not in batch_r:
            size *= n
    return size <= 256
