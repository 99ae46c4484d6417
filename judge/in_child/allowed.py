"""What a submission may use of the modules it may import: a reviewed list of names per module.

Whole modules are not allowed, because allowed modules carry functions that reach anything by a
name given as a string (``functools.update_wrapper`` gets and sets any attribute,
``typing.get_type_hints`` evaluates text, ``jax.tree_util.register_dataclass`` reads fields by
name) and other modules as attributes (``typing.sys``). So each allowed module lists the names a
checkpointing solution may use: the static gate (``judge.in_child.gate``) refuses any other name, with the
line, and the child imports views of the modules that hold these names and nothing else
(``judge.in_child.guard``).

The lists were written by reading each module: array mathematics, dtypes, transformations and
policies are in; a name is left out when it evaluates code, gets or sets attributes by name,
touches files, changes process-wide settings, or is simply not something a solution needs (then
the default reason applies). ``tests/judge/test_allowed.py`` keeps the lists honest: every name
exists in the pinned versions, and nothing reachable by attribute access from them is a module,
a function from the string-keyed reflection family, or a metaclass.
"""

from __future__ import annotations

import functools

from .allowed_names import MODULES, SUMMARY

__all__ = ["MODULES", "SUMMARY", "module_allowed", "name_refusal", "reason"]

# Refusals worded once, for this list's names and the gate's attributes (``judge.in_child.gate``).
FILES_REASON = "submissions cannot read or write files"
CALLBACK_REASON = (
    "host callbacks run Python outside the traced program, which the judge cannot grade; "
    "print() inside your function shows the traced values"
)
# NumPy's functions that read or write files (JAX's namespace has some of them).
NUMPY_FILE_FUNCTIONS = (
    "load",
    "save",
    "savez",
    "savez_compressed",
    "fromfile",
    "tofile",
    "loadtxt",
    "savetxt",
    "genfromtxt",
    "fromregex",
    "memmap",
)
_FILES = FILES_REASON
_BY_NAME = "it gets or sets attributes chosen by name"
_CODE = "it evaluates text as Python code"
_SETTINGS = "it changes settings of the whole process, not of your function"
_CALLBACK = CALLBACK_REASON
_MODULE = "it is another module, which submissions may not import"
# Why a name some allowed module has is not in its list, where the reason is more than "not needed".
REASONS: dict[tuple[str, str], str] = {
    # JAX's checkpoint by its module path: the same function, which the judge reads by its usual name
    **{
        (
            "jax.ad_checkpoint",
            name,
        ): "it is jax.checkpoint by another path: write jax.checkpoint(...), the same function"
        for name in ("checkpoint", "remat")
    },
    **{("numpy", name): _FILES for name in NUMPY_FILE_FUNCTIONS},
    **{("jax.numpy", name): _FILES for name in ("load", "save", "savez", "fromfile")},
    ("numpy", "bmat"): "it looks up variables of the calling code by name",
    ("numpy", "info"): _BY_NAME,
    ("functools", "update_wrapper"): _BY_NAME + " (use functools.wraps, which copies the name and docstring)",
    ("functools", "WRAPPER_ASSIGNMENTS"): _BY_NAME,
    ("functools", "WRAPPER_UPDATES"): _BY_NAME,
    ("functools", "singledispatch"): _CODE + " (its annotations)",
    ("functools", "singledispatchmethod"): _CODE + " (its annotations)",
    ("typing", "get_type_hints"): _CODE + " (string annotations)",
    **{
        ("typing", name): "it is a metaclass, which builds classes from dictionaries of names; write a class statement"
        for name in ("ABCMeta", "NamedTupleMeta")
    },
    ("typing", "ForwardRef"): _CODE,
    ("jax.tree_util", "register_dataclass"): _BY_NAME + "; register your class with "
    "jax.tree_util.register_pytree_node instead",
    **{
        ("jax", name): _SETTINGS
        for name in (
            "config",
            "disable_jit",
            "enable_x64",
            "default_matmul_precision",
            "numpy_dtype_promotion",
            "numpy_rank_promotion",
            "debug_nans",
            "debug_infs",
            "transfer_guard",
            "default_device",
            "clear_caches",
        )
    },
    **{
        (module, name): _SETTINGS
        for module in ("numpy", "jax.numpy")
        for name in ("set_printoptions", "printoptions", "seterr", "seterrcall", "setbufsize")
    },
    ("jax", "debug"): "jax.debug.print and jax.debug.callback are " + _CALLBACK,
    ("jax", "pure_callback"): _CALLBACK,
    **{
        (parent, name): _MODULE
        for parent, name in (
            ("typing", "sys"),
            ("typing", "types"),
            ("typing", "operator"),
            ("typing", "functools"),
            ("typing", "collections"),
            ("typing", "contextlib"),
            ("numpy", "lib"),
            ("numpy", "ctypeslib"),
            ("numpy", "testing"),
            ("numpy", "f2py"),
            ("numpy", "rec"),
            ("numpy", "char"),
            ("jax", "lib"),
            ("jax", "core"),
            ("jax", "experimental"),
            ("jax", "interpreters"),
            ("jax", "export"),
            ("jax", "ffi"),
            ("jax", "api_util"),
            ("jax", "extend"),
            ("jax", "profiler"),
            ("jax", "ref"),
            ("equinox", "importlib"),
            ("equinox", "internal"),
            ("equinox", "debug"),
        )
    },
    **{
        ("equinox", name): _FILES
        for name in (
            "tree_serialise_leaves",
            "tree_deserialise_leaves",
            "default_serialise_filter_spec",
            "default_deserialise_filter_spec",
        )
    },
    **{("equinox", name): _CALLBACK for name in ("filter_pure_callback", "error_if", "branched_error_if")},
    ("equinox", "module_update_wrapper"): "it writes attributes onto other objects, which submissions may not change",
    ("equinox", "clear_caches"): _SETTINGS,
    **{("equinox.nn", name): _BY_NAME + " (its weight_name)" for name in ("WeightNorm", "SpectralNorm")},
    # Flax NNX: graph surgery by path or name, training state, display, and its other modules
    **{
        ("flax.nnx", name): _BY_NAME + " (a state's keys or a filter's names)"
        for name in ("update", "pop", "set_metadata", "with_attributes", "replace_by_pure_dict", "state", "graph")
    },
    **{
        ("flax.nnx", name): "training state (optax's optimizers) is not part of a checkpointing solution"
        for name in ("Optimizer", "ModelAndOptimizer", "TrainState")
    },
    **{
        ("flax.nnx", name): "it renders a module with treescope or rich, outside the traced program; "
        "print() shows a module"
        for name in ("display", "tabulate")
    },
    **{
        ("flax.nnx", name): _MODULE
        for name in (
            "bridge",
            "compat",
            "graphlib",
            "helpers",
            "module",
            "nn",
            "rnglib",
            "statelib",
            "transforms",
            "variablelib",
            "visualization",
        )
    },
}


def module_allowed(name: str) -> bool:
    return name in MODULES


def reason(module: str, name: str) -> str:
    """Why ``module.name`` is not available (for a name its module's list lacks)."""
    return (
        REASONS.get((module, name))
        or f"it is not among the {module} names that submissions may use; check its spelling"
    )


@functools.lru_cache(maxsize=None)
def name_refusal(module: str, name: str) -> str | None:
    """Why ``module.name`` is not available to a submission, or None when it is."""
    if name in MODULES.get(module, ()):
        return None
    return f"`{module}.{name}` is not available in submissions: {reason(module, name)}"
