"""Hostile submissions that reach the judge's process through string-keyed reflection.

Each one gets ``sys`` by a function of an allowed module that reads attributes, evaluates text
or imports by a name given as a string (or by a builtin that does), and then does what the
red-team's escape did: it replaces the judge's inspection, inside its own process, with one that
describes an honest checkpointed program, while the program it exports is a hand-written
``custom_vjp`` that saves the same residuals (so the verifier, which recomputes numbers and
residual sizes, finds nothing wrong). Before the module views and the run-time guard
(``judge.in_child.allowed``, ``judge.in_child.guard``) each of these was accepted, as sent or past the gate.

Now each is refused by the static gate where the file shows the construct (``forbidden``, with
its line), and past the gate by the run-time guard (``runtime_error``, with the guard's reason).
What the source cannot show (a module passed as a value to ``functools.wraps``) the gate refuses
at the forgery's own step (``.setattr``); past the gate the guard's ``wraps`` stops it. Raw
memory through numpy's ctypes arrays is refused by the gate alone (by the attribute's name); past
the gate that escape meets the operating system layers instead.
"""

from __future__ import annotations

# A custom_vjp that saves what the dots policy saves, and answers to the judge's inspection with
# what the honest program would show. Everything it needs from the judge comes from `sys`.
FORGERY = """
import functools
import typing

import jax
import jax.numpy as jnp
import numpy as np


def pipeline(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)


def honest(w1, w2, x):
    return jax.checkpoint(pipeline, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(w1, w2, x)


@jax.custom_vjp
def checkpoint_dot_policy(w1, w2, x):
    return pipeline(w1, w2, x)


def forward(w1, w2, x):
    a = x @ w1
    b = jax.nn.relu(a) @ w2
    return jnp.sum(b ** 2), (w1, w2, x, a, b)


def backward(saved, g):
    w1, w2, x, a, b = saved
    db = 2.0 * b * g
    da = (db @ w2.T) * (a > 0)
    return x.T @ da, jax.nn.relu(a).T @ db, da @ w1.T


checkpoint_dot_policy.defvjp(forward, backward)


class Forged:
    @staticmethod
    def saved_residuals(fn, args, wrt, names, filename):
        real_saved(fn, args, wrt, names, filename)
        return real_saved(honest, args, wrt, names, filename)

    @staticmethod
    def checkpoint_structure(fn, args, filename):
        real_structure(fn, args, filename)
        return real_structure(honest, args, filename)


def borrowed():
    return None
"""

FORGE = """
provenance, structure = sys.modules["judge.inspection.provenance"], sys.modules["judge.inspection.structure"]
real_saved, real_structure = provenance.saved_residuals, structure.checkpoint_structure
patch = sys.modules["builtins"].setattr
patch(provenance, "saved_residuals", Forged.saved_residuals)
patch(structure, "checkpoint_structure", Forged.checkpoint_structure)
"""

# The classic way out (tests.escape), written as text for whatever evaluates text.
SUBCLASSES_ESCAPE = (
    "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'catch_warnings'][0]"
    ".__init__.__globals__['sys']"
)


def forging(reach: str) -> str:
    """The forgery, with ``reach`` (which binds ``sys``) between its definitions and its use."""
    return FORGERY + "\n" + reach.strip("\n") + "\n" + FORGE


# name -> (how it gets sys, verdict as sent, verdict past the gate, phrase of the deep message)
REACHES = {
    "update_wrapper_reads_globals": (
        """
# update_wrapper(w, f, assigned, updated) runs getattr(w, name).update(getattr(f, name)):
# this module's globals receive those of a JAX module, sys among them
functools.update_wrapper(borrowed, jax.block_until_ready, assigned=(), updated=("__globals__",))
""",
        "forbidden",
        "runtime_error",
        "`functools.update_wrapper` is not available in submissions",
    ),
    "wraps_with_chosen_names": (
        """
functools.wraps(jax.block_until_ready, assigned=(), updated=("__globals__",))(borrowed)
""",
        "forbidden",
        "runtime_error",
        "unexpected keyword argument 'assigned'",
    ),
    "wraps_copies_a_module_namespace": (
        """
functools.wraps(typing)(borrowed)  # the default `updated` copies typing's namespace into borrowed
sys = borrowed.sys
""",
        "forbidden",
        "runtime_error",
        "has no attribute 'sys'",
    ),  # as sent, the gate refuses the forgery's `.setattr`
    "get_type_hints_of_a_function": (
        f'''
def probe(x: "{SUBCLASSES_ESCAPE}"):
    return x


sys = typing.get_type_hints(probe)["x"]
''',
        "forbidden",
        "runtime_error",
        "`typing.get_type_hints` is not available in submissions",
    ),
    "get_type_hints_of_a_class": (
        """
class Probe:
    found: "__import__('sys')"


sys = typing.get_type_hints(Probe)["found"]
""",
        "forbidden",
        "runtime_error",
        "`typing.get_type_hints` is not available in submissions",
    ),
    "get_type_hints_imported_by_name": (
        """
from typing import get_type_hints


class Probe:
    found: "__import__('sys')"


sys = get_type_hints(Probe)["found"]
""",
        "forbidden",
        "runtime_error",
        "`from typing import get_type_hints` is not allowed",
    ),
    "singledispatch_evaluates_annotations": (
        f"""
box = []


@functools.singledispatch
def probe(x):
    return x


@probe.register
def on_int(x: "[box.append({SUBCLASSES_ESCAPE}), int][1]"):
    return x


sys = box[0]
""",
        "forbidden",
        "runtime_error",
        "`functools.singledispatch` is not available in submissions",
    ),
    "typing_carries_sys": (
        """
sys = typing.sys
""",
        "forbidden",
        "runtime_error",
        "`typing.sys` is not available in submissions",
    ),
    "attrgetter_through_typing": (
        """
sys = typing.operator.attrgetter("__globals__")(jax.block_until_ready)["sys"]
""",
        "forbidden",
        "runtime_error",
        "`typing.operator` is not available in submissions",
    ),
    "methodcaller_imported_from_typing": (
        """
from typing import operator

sys = operator.methodcaller("__getattribute__", "__globals__")(jax.block_until_ready)["sys"]
""",
        "forbidden",
        "runtime_error",
        "`from typing import operator` is not allowed",
    ),
    "register_dataclass_reads_globals": (
        """
# a pytree node type whose one field is named by a string: flattening reads it with getattr
jax.tree_util.register_dataclass(type(borrowed), data_fields=["__globals__"], meta_fields=[])
target = jax.block_until_ready
leaves, _ = jax.tree_util.tree_flatten_with_path(target, is_leaf=lambda v: v is not target)
sys = leaves[0][1]["sys"]
""",
        "forbidden",
        "runtime_error",
        "`jax.tree_util.register_dataclass` is not available in submissions",
    ),
    "type_builds_a_sink": (
        """
# a dict whose attribute assignment stores items, so that update_wrapper's setattr can be read
Sink = type("Sink", (dict,), {"__setattr__": dict.setdefault})
sink = Sink()
functools.update_wrapper(sink, jax.block_until_ready, assigned=("__globals__",), updated=())
sys = sink["__globals__"]["sys"]
""",
        "forbidden",
        "runtime_error",
        "type() with three arguments",
    ),
    "metaclass_of_a_class_builds_a_sink": (
        """
Sink = type(int)("Sink", (dict,), {"__setattr__": dict.setdefault})
sink = Sink()
functools.update_wrapper(sink, jax.block_until_ready, assigned=("__globals__",), updated=())
sys = sink["__globals__"]["sys"]
""",
        "forbidden",
        "runtime_error",
        "type() with three arguments",
    ),
    "metaclass_of_a_typing_class_builds_a_sink": (
        """
Sink = type(typing.Protocol)("Sink", (dict,), {"__setattr__": dict.setdefault})
sink = Sink()
functools.update_wrapper(sink, jax.block_until_ready, assigned=("__globals__",), updated=())
sys = sink["__globals__"]["sys"]
""",
        "forbidden",
        "runtime_error",
        "type() with three arguments",
    ),
    "typing_metaclass_builds_a_sink": (
        """
Sink = typing.ABCMeta("Sink", (dict,), {"__setattr__": dict.setdefault})
sink = Sink()
functools.update_wrapper(sink, jax.block_until_ready, assigned=("__globals__",), updated=())
sys = sink["__globals__"]["sys"]
""",
        "forbidden",
        "runtime_error",
        "`typing.ABCMeta` is not available in submissions",
    ),
    "import_called_by_name": (
        """
sys = __import__("sys")
""",
        "forbidden",
        "runtime_error",
        "'NoneType' object has no attribute 'modules'",
    ),
    "import_from_the_builtins_dict": (
        """
sys = __builtins__["__import__"]("sys", None, None, ["__doc__"], 0)  # as C code calls it
""",
        "forbidden",
        "runtime_error",
        "'NoneType' object has no attribute 'modules'",
    ),
    "equinox_hands_out_importlib": (
        """
import equinox as eqx

sys = eqx.importlib.import_module("sys")  # Equinox's namespace holds the standard importlib
""",
        "forbidden",
        "runtime_error",
        "`equinox.importlib` is not available in submissions",
    ),
    "loader_of_the_builtins": (
        """
sys = __loader__.load_module("sys")
""",
        "forbidden",
        "runtime_error",
        "name '__loader__' is not defined",
    ),
}

# numpy hands out ctypes arrays (`a.ctypes.shape`), whose type reads and writes memory at any
# address: the object a list holds is swapped for a JAX function's globals. Only the gate
# refuses it (by the attribute's name); past the gate the same escape meets the OS layers.
CTYPES_MEMORY = """
Word = type(np.zeros((1,)).ctypes.shape)  # c_ssize_t * 1


def word(address):
    return Word.from_address(address)


holder = [None]
items = word(id(holder) + 24)[0]  # PyListObject.ob_item
globals_address = word(id(jax.block_until_ready) + 16)[0]  # PyFunctionObject.func_globals
word(globals_address)[0] += 1  # the list's new reference
word(items)[0] = globals_address
sys = holder[0]["sys"]
"""
EXEC_A_SHELL = """
try:
    sys.modules["os"].execv("/bin/sh", ["sh", "-c", "touch {marker}"])
except OSError as exc:
    raise RuntimeError(f"exec: {exc!r}")
"""
