import math


def small_dots(prim, *types, **params):
    return prim.name == "dot_general" and math.prod(types[0].shape) <= 256
