def small_dots(prim, *types, **params):
    return "yes" if prim.name == "dot_general" else "no"
