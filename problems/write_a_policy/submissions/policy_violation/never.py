def small_dots(prim, *types, **params):
    return False
