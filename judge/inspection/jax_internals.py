"""Every JAX object and internal the judge reads, bound here once, pinned to the JAX in the lock file.

The rest of ``judge.inspection`` reads JAX through these names only. They are bound when this
module is imported, which happens in the zygote before any submission exists: a submission
that rebinds ``jax.checkpoint``, ``jax.make_jaxpr`` or ``jax.checkpoint_policies.dots_saveable``
changes its own program, not what the judge reads (see the package's docstring). The contract
tests (``tests/judge/test_residuals_contract.py``) pin what is read through them to the JAX
tutorial's listings; a JAX upgrade that changes any of it fails there first.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from pathlib import Path

import jax
import jax.extend.core as jex_core
import numpy as np
from jax._src import ad_checkpoint as _ac
from jax._src import core as _core
from jax._src import custom_derivatives as _custom_derivatives
from jax._src import dtypes as _dtypes
from jax._src import linear_util as _lu
from jax._src import source_info_util as _source_info
from jax._src.export import _export as _export_internals
from jax._src.interpreters import mlir as _mlir
from jax._src.lax import lax as _lax
from jax._src.lib.mlir import (
    ir as mlir_ir,  # noqa: F401 (re-exported) the verifier's cost walk reads the lowered module (program_cost)
)
from jax._src.lib.mlir import passmanager as _passmanager
from jax._src.lib.mlir.dialects import hlo as mlir_hlo  # noqa: F401 (re-exported)

# Bound at import (in the zygote, before any submission ran): see the module's docstring.
_make_jaxpr = jax.make_jaxpr
_vjp = jax.vjp
_jit = jax.jit
_tree_flatten = jax.tree_util.tree_flatten
_tree_unflatten = jax.tree_util.tree_unflatten
_ShapeDtypeStruct = jax.ShapeDtypeStruct
_jaxpr_as_fun = jex_core.jaxpr_as_fun
_eval_jaxpr = _core.eval_jaxpr
_user_context = _source_info.user_context
_current_name_stack = _source_info.current_name_stack
checkpoint_policies = jax.checkpoint_policies
REMAT = _ac.remat_p
RematTraced = _ac.RematTraced  # jax.checkpoint under JAX_REMAT3: a "hi" primitive holding a program
CheckpointName = _ac.CheckpointName  # checkpoint_name under JAX_REMAT3
HI_PRIMITIVE = "call_hi_primitive"
NAME = _ac.name_p
REDUCE_PRECISION = _lax.reduce_precision_p
# An offloading policy's copy of a value between memories (device -> pinned_host and back).
MOVES = "device_put"
LOOPS = {"scan", "while", "fori_loop"}
CUTS_GRADIENT = {"stop_gradient"}
ALIASING = {"optimization_barrier"}  # its results are its operands
CUSTOM_CALLS = {"custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr"}
# Primitives whose derivative is a rule given in Python rather than derived from the program.
CUSTOM_DERIVATIVES = CUSTOM_CALLS | {"linear_call", "custom_transpose_call", "custom_lin"}
WrappedFun = _lu.WrappedFun
custom_jvp = _custom_derivatives.custom_jvp
custom_vjp = _custom_derivatives.custom_vjp
# Custom calls that JAX guarantees stable: XLA's own, not host callbacks or native code.
STABLE_CUSTOM_CALL_TARGETS = _export_internals._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE
_JAX_SOURCE = str(Path(_ac.__file__).resolve().parent)
_FUNCTION = types.FunctionType


# ---------------------------------------------------------------------------- reading jaxprs


def _line_of(source_info, filename: str) -> int | None:
    """The innermost line of the submission's own file in an equation's traceback."""
    span = _span_of(source_info, filename)
    return span[0] if span else None


def _span_of(source_info, filename: str) -> list[int] | None:
    """Where in the submission's own file (its innermost frame there) an equation was made:
    [start line, start column, end line, end column], the expression the learner wrote
    (``jax.nn.relu(x @ w1)`` for relu's derivative rule's own operations too)."""
    traceback = getattr(source_info, "traceback", None)
    if traceback is None:
        return None
    codes, lasti = traceback.raw_frames()
    for code, offset in zip(codes, lasti):
        if code.co_filename == filename:
            frame = _source_info.raw_frame_to_frame(code, offset)
            return [int(frame.start_line), int(frame.start_column), int(frame.end_line), int(frame.end_column)]
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


# ---------------------------------------------------------------------------- checkpoints


def is_remat(eqn) -> bool:
    """A ``jax.checkpoint``, in either remat implementation."""
    return eqn.primitive is REMAT or (
        eqn.primitive.name == HI_PRIMITIVE and type(eqn.params.get("_prim")) is RematTraced
    )


def remat_body(eqn):
    return eqn.params["jaxpr"] if eqn.primitive is REMAT else eqn.params["_prim"].jaxpr.jaxpr


def remat_policy(eqn):
    return eqn.params.get("policy") if eqn.primitive is REMAT else eqn.params["_prim"].policy


# ---------------------------------------------------------------------------- programs inside equations


@dataclass
class Body:
    """A program inside an equation, and how its inputs and outputs connect to the equation's."""

    jaxpr: object
    operands: list  # per body input, the index of the equation's input that feeds it
    results: list  # per body output, the index of the equation's output it becomes (or None)
    carries: list = field(default_factory=list)  # (body output, body input) pairs a loop feeds back

    def inputs(self, flags) -> list[bool]:
        return [flags[i] for i in self.operands]

    def outputs(self, body_flags) -> list[bool]:
        out = [False] * (max((k for k in self.results if k is not None), default=-1) + 1)
        for flag, k in zip(body_flags, self.results):
            if k is not None:
                out[k] = out[k] or flag
        return out

    def grow(self, body_in, body_out) -> bool:
        """Feed a loop's flagged carried outputs back to its inputs; True if anything changed."""
        return _spread(self.carries, body_out, body_in)

    def grow_back(self, body_out, body_in) -> bool:
        """Backwards: a flagged carried input flags the output carried into it."""
        return _spread([(i, j) for j, i in self.carries], body_in, body_out)

    def live_outputs(self, eqn_flags) -> list[bool]:
        return [k is not None and eqn_flags[k] for k in self.results]

    def live_inputs(self, body_flags, count: int) -> list[bool]:
        out = [False] * count
        for flag, i in zip(body_flags, self.operands):
            out[i] = out[i] or flag
        return out


def _spread(pairs, source: list, target: list) -> bool:
    changed = False
    for s, t in pairs:
        if source[s] and not target[t]:
            target[t] = changed = True
    return changed


def bodies(eqn) -> list[Body]:
    """The programs inside ``eqn`` that compute its results, connected to its inputs and outputs."""
    name, params = eqn.primitive.name, eqn.params
    n_in, n_out = len(eqn.invars), len(eqn.outvars)
    if name == "cond":
        return [Body(b.jaxpr, list(range(1, n_in)), list(range(n_out))) for b in params["branches"]]
    if name == "while":
        cond_n, body_n = params["cond_nconsts"], params["body_nconsts"]
        operands = list(range(cond_n, n_in))
        return [Body(params["body_jaxpr"].jaxpr, operands, list(range(n_out)), [(k, body_n + k) for k in range(n_out)])]
    if name == "scan":
        consts, carry = params["num_consts"], params["num_carry"]
        return [
            Body(params["jaxpr"].jaxpr, list(range(n_in)), list(range(n_out)), [(k, consts + k) for k in range(carry)])
        ]
    body = _call_body(eqn)
    if body is None or len(body.invars) != n_in or len(body.outvars) != n_out:
        return []
    return [Body(body, list(range(n_in)), list(range(n_out)))]


def _call_body(eqn):
    return remat_body(eqn) if is_remat(eqn) else _inner_jaxpr(eqn)


def nested_programs(eqn) -> list:
    """The programs an equation holds, in the order its parameters list them (the order in which
    ``replay`` rewrites them); a custom derivative's are its rules' inputs, not walked."""
    if eqn.primitive.name.startswith("custom_"):
        return []
    found = []
    for value in eqn.params.values():
        if isinstance(value, jex_core.ClosedJaxpr):
            found.append(value.jaxpr)
        elif isinstance(value, tuple) and value and all(isinstance(v, jex_core.ClosedJaxpr) for v in value):
            found += [v.jaxpr for v in value]
    return found


# ---------------------------------------------------------------------------- custom derivatives

# Where a custom derivative's equation keeps the rules that run when it is differentiated.
_RULE_PARAMS = {
    "custom_jvp_call": ("jvp_jaxpr_fun",),
    "custom_vjp_call": ("fwd_jaxpr_thunk", "bwd"),
    "custom_vjp_call_jaxpr": ("fwd_jaxpr_thunk", "bwd"),
}
_RULE_SEARCH_LIMIT = 64


def rule_functions(eqn, known) -> tuple[list, list]:
    """The functions a custom derivative's equation may run when differentiated, found by following
    the wrappers JAX made around its rules (``WrappedFun.f``, and the cells of closures whose code
    is JAX's), calling nothing: (those in ``known``, those not written in JAX's source). Following
    stops at a known rule; JAX's own plumbing in between is neither."""
    library, foreign, seen = [], [], set()
    pending = [eqn.params.get(key) for key in _RULE_PARAMS.get(eqn.primitive.name, ())]
    while pending and len(seen) < _RULE_SEARCH_LIMIT:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if type(value) is WrappedFun:
            pending.append(value.f)
        elif type(value) is _FUNCTION:
            if known.get(id(value)) is value:
                library.append(value)
            elif not value.__code__.co_filename.startswith(_JAX_SOURCE):
                foreign.append(value)
            else:
                pending += [cell.cell_contents for cell in value.__closure__ or () if _filled(cell)]
    return library, foreign


def _filled(cell) -> bool:
    try:
        _ = cell.cell_contents  # raises on an empty cell
    except ValueError:  # an empty cell
        return False
    return True


# ---------------------------------------------------------------------------- values


def is_floating(v) -> bool:
    aval = getattr(v, "aval", None)
    return isinstance(v, jex_core.Var) and hasattr(aval, "dtype") and np.issubdtype(aval.dtype, np.inexact)


def full_precision(eqn) -> bool:
    """A ``reduce_precision`` to its operand's own precision: it changes no value."""
    aval = eqn.invars[0].aval
    if not np.issubdtype(aval.dtype, np.floating):
        return False
    info = _dtypes.finfo(aval.dtype)
    return eqn.params["exponent_bits"] == info.nexp and eqn.params["mantissa_bits"] == info.nmant


def memory_kind(v) -> str:
    """Where ``v`` lives, by JAX's own name of its memory: "device" or "pinned_host". (JAX 0.10.2
    maps every other destination, "unpinned_host" included, to the device.)"""
    return aval_memory(getattr(v, "aval", None))


def aval_memory(aval) -> str:
    return "pinned_host" if getattr(aval, "memory_space", None) == _core.MemorySpace.Host else "device"


def moves_memory(eqn) -> bool:
    """A ``device_put``: each result is a copy of its operand, in the same memory or another (an
    offloading policy adds them; one whose destination JAX does not map to the host copies from
    the device to the device)."""
    return eqn.primitive.name == MOVES and len(eqn.invars) == len(eqn.outvars)


def device_bytes(v) -> int:
    """What ``v`` occupies in device memory (a value offloaded to the host: nothing)."""
    return 0 if memory_kind(v) != "device" else var_bytes(v)


def var_bytes(v) -> int:
    aval = getattr(v, "aval", None)
    if not hasattr(aval, "shape") or not hasattr(aval, "dtype"):
        return 0
    # the dtype's own itemsize: JAX's PRNG keys (key<fry>, 8 bytes) are no numpy dtype
    return int(np.prod(aval.shape, dtype=np.int64)) * aval.dtype.itemsize


def without_locations(exported):
    """An exported program with its debug locations (file names, lines, name stacks: the checkpoints'
    random tokens among them) left out: the same program exports to the same bytes from one grading
    to the next, so that the verifier's compilation of it can be kept (``judge.grading.compiled_programs``).
    Nothing the verifier does reads a location; what the learner is told of lines comes from the trace."""
    import dataclasses

    with _mlir.make_ir_context():
        module = mlir_ir.Module.parse(exported.mlir_module_serialized)
        _passmanager.PassManager.parse("builtin.module(strip-debuginfo)").run(module.operation)
        data = _mlir.module_to_bytecode(module)
    return dataclasses.replace(exported, mlir_module_serialized=data)
