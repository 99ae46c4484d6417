"""Every JAX object and internal the judge reads, bound here once, pinned to the JAX in the lock file.

The rest of ``judge.inspection`` reads JAX through these names only. They are bound when this
module is imported, which happens in the zygote before any submission exists: a submission
that rebinds ``jax.checkpoint``, ``jax.make_jaxpr`` or ``jax.checkpoint_policies.dots_saveable``
changes its own program, not what the judge reads (see the package's docstring). The contract
tests (``tests/judge/test_residuals_contract.py``) pin what is read through them to the JAX
tutorial's listings; a JAX upgrade that changes any of it fails there first.
"""
from __future__ import annotations

import jax
import jax.extend.core as jex_core
from jax._src import ad_checkpoint as _ac
from jax._src import source_info_util as _source_info
from jax._src.export import _export as _export_internals
from jax._src.lax import lax as _lax

from .. import policy_names

# Bound at import (in the zygote, before any submission ran): see the module's docstring.
_make_jaxpr = jax.make_jaxpr
_vjp = jax.vjp
_jit = jax.jit
_tree_flatten = jax.tree_util.tree_flatten
_tree_unflatten = jax.tree_util.tree_unflatten
_tree_leaves = jax.tree_util.tree_leaves
_ShapeDtypeStruct = jax.ShapeDtypeStruct
_KNOWN_POLICIES = {name: getattr(jax.checkpoint_policies, name)
                   for name in policy_names.PLAIN + tuple(policy_names.ALIASES)}
REMAT = _ac.remat_p
NAME = _ac.name_p
REDUCE_PRECISION = _lax.reduce_precision_p
CALLS = {"jit", "pjit", "closed_call", "core_call", "remat2", "checkpoint"}
LOOPS = {"scan", "while", "fori_loop"}
CUSTOM_CALLS = {"custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr"}
# Custom calls that JAX guarantees stable: XLA's own, not host callbacks or native code.
STABLE_CUSTOM_CALL_TARGETS = _export_internals._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE


# ---------------------------------------------------------------------------- reading jaxprs

def _line_of(source_info, filename: str) -> int | None:
    """The innermost line of the submission's own file in an equation's traceback."""
    traceback = getattr(source_info, "traceback", None)
    if traceback is None:
        return None
    codes, lasti = traceback.raw_frames()
    for code, offset in zip(codes, lasti):
        if code.co_filename == filename:
            return _source_info.raw_frame_to_frame(code, offset).start_line
    return None


def _closed(jaxpr_like):
    return getattr(jaxpr_like, "jaxpr", jaxpr_like)


def _inner_jaxpr(eqn):
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        if key in eqn.params:
            return _closed(eqn.params[key])
    return None


def _primitive_label(eqn) -> str:
    """A primitive's name; a custom_jvp/custom_vjp call is named by the function it wraps."""
    name = eqn.primitive.name
    if name not in CUSTOM_CALLS:
        return name
    if eqn.params.get("name"):
        return str(eqn.params["name"])
    inner = _inner_jaxpr(eqn)
    info = getattr(inner, "debug_info", None)
    func = getattr(info, "func_src_info", None) or ""
    return func.split(" at ")[0] or name
