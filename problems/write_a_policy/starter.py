import math


def small_dots(prim, *input_types, **params):
    # Return True only for dot_general results with at most 256 elements.
    return False
