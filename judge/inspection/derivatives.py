"""Derivatives the program defines by hand: ``custom_vjp``, ``custom_jvp`` and any other primitive
whose derivative is a rule given in Python rather than derived from the program.

JAX's own functions use ``custom_jvp`` too (``jax.nn.relu``, ``jnp.logaddexp``...), and those are
not the submission's. They are known by identity: every ``custom_jvp`` and ``custom_vjp`` JAX's
modules define is found when this module is imported (in the zygote, before any submission
exists) and the rule functions they hold are recorded (``LIBRARY_RULES``). A custom derivative in
a traced program is JAX's own when the rule it would run is one of those very functions, as they
were then; a rule the submission wrote, or put on one of JAX's functions (``jax.nn.relu.defjvps``),
is not.
"""

from __future__ import annotations

import importlib
import sys

from ..in_child import allowed
from .jax_internals import (
    CUSTOM_DERIVATIVES,
    HI_PRIMITIVE,
    CheckpointName,
    RematTraced,
    _line_of,
    custom_jvp,
    custom_vjp,
    rule_functions,
)


def _library_rules() -> dict:
    for name in sorted(allowed.MODULES):  # what a submission can reach, imported before it can
        if name.startswith("jax"):
            importlib.import_module(name)
    rules = {}
    for module_name, module in list(sys.modules.items()):
        if module_name != "jax" and not module_name.startswith("jax."):
            continue
        for value in list(vars(module).values()):
            if type(value) is custom_jvp:
                rules[id(value.jvp)] = value.jvp
            elif type(value) is custom_vjp:
                rules[id(value.fwd)] = value.fwd
                rules[id(value.bwd)] = value.bwd
    return rules


LIBRARY_RULES = _library_rules()


def _library(eqn) -> bool:
    library, foreign = rule_functions(eqn, LIBRARY_RULES)
    return bool(library) and not foreign


def hand_written(eqn, filename: str) -> dict | None:
    """The custom derivative ``eqn`` defines, if it is not one of JAX's own functions'."""
    name = eqn.primitive.name
    if name == HI_PRIMITIVE:
        if type(eqn.params.get("_prim")) in (RematTraced, CheckpointName):
            return None
        kind = type(eqn.params.get("_prim")).__name__
    elif name in CUSTOM_DERIVATIVES:
        if _library(eqn):
            return None
        kind = name.replace("_call", "").replace("_jaxpr", "")
    else:
        return None
    return {"kind": kind, "line": _line_of(eqn.source_info, filename)}
