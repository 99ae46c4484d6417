"""The cost of one whole gradient step, read from the traced program: FLOPs and peak live bytes."""
from __future__ import annotations

import jax
import numpy as np

from .jax_internals import _closed, _jit, _make_jaxpr, jex_core
from .programs import _structs, _vjp_parts


# Data movement and bookkeeping: no arithmetic worth counting.
FREE = {"reshape", "squeeze", "expand_dims", "broadcast_in_dim", "transpose", "convert_element_type",
        "copy", "copy_p", "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "pad",
        "gather", "select_n", "iota", "reduce_precision", "name", "optimization_barrier", "pjit", "jit",
        "squeeze", "rev", "stop_gradient"}


def _count_flops(jaxpr) -> float:
    """Arithmetic of a program, walking into calls, checkpoints and loops (each iteration counted)."""
    total = 0.0
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name == "dot_general":
            (lhs_contract, _), _ = eqn.params["dimension_numbers"]
            lhs = eqn.invars[0].aval
            contracted = int(np.prod([lhs.shape[i] for i in lhs_contract], dtype=np.int64))
            total += 2.0 * int(np.prod(eqn.outvars[0].aval.shape, dtype=np.int64)) * contracted
        elif name == "scan":
            total += eqn.params["length"] * _count_flops(_closed(eqn.params["jaxpr"]))
        elif jex_core.jaxprs_in_params(eqn.params) and name not in ("cond", "while"):
            total += sum(_count_flops(sub) for sub in jex_core.jaxprs_in_params(eqn.params))
        elif name == "cond":  # the most expensive branch
            total += max(_count_flops(b.jaxpr) for b in eqn.params["branches"])
        elif name not in FREE:
            total += sum(int(np.prod(v.aval.shape, dtype=np.int64)) for v in eqn.outvars
                         if hasattr(v.aval, "shape"))
    return total


def _var_bytes(v) -> int:
    aval = getattr(v, "aval", None)
    if not hasattr(aval, "shape") or not hasattr(aval, "dtype"):
        return 0
    return int(np.prod(aval.shape, dtype=np.int64)) * np.dtype(aval.dtype).itemsize


def _peak_live_bytes(jaxpr) -> int:
    """Most bytes alive at once while the program runs in order, inputs included.

    A value lives from the equation that makes it to its last use. Calls, checkpoints and loop
    bodies add their own peak above their inputs while they run, so the memory a checkpoint
    needs when its recomputation happens on the backward pass is counted where it happens.
    """
    last_use = {}
    for index, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if isinstance(v, jex_core.Var):
                last_use[v] = index
    for v in jaxpr.outvars:
        if isinstance(v, jex_core.Var):
            last_use[v] = len(jaxpr.eqns)
    live = {v: _var_bytes(v) for v in list(jaxpr.invars) + list(jaxpr.constvars)}
    current = sum(live.values())
    peak = current
    for index, eqn in enumerate(jaxpr.eqns):
        inner = 0
        for sub in jex_core.jaxprs_in_params(eqn.params):
            inner = max(inner, _peak_live_bytes(sub) - sum(_var_bytes(v) for v in sub.invars))
        made = sum(_var_bytes(v) for v in eqn.outvars)
        peak = max(peak, current + max(inner, 0) + made)
        for v in eqn.outvars:
            if not isinstance(v, jex_core.DropVar) and v in last_use:
                live[v] = _var_bytes(v)
                current += live[v]
        for v in {v for v in eqn.invars if isinstance(v, jex_core.Var)}:
            if last_use.get(v) == index and v in live:
                current -= live.pop(v)
    return peak


def compiled_cost(fn, args, wrt) -> dict:
    """The cost of one whole gradient step (forward, residuals, backward).

    ``flops`` and ``peak_bytes`` are read from the traced program, where every recomputation a
    checkpoint causes, every loop iteration and every value's lifetime are visible. XLA's own
    estimates (the ``xla_`` fields) count a loop body once, may merge recomputations and
    reschedule freely on CPU, so they cannot rank checkpointing strategies; they are reported
    beside ours for reference. The cotangent is an input of the step: nothing is run to make one.
    """
    forward, backward = _vjp_parts(fn, wrt)

    def step(arrays, cotangents):
        outs, res = forward(*arrays)
        return outs, backward(res, cotangents)

    out_shape, _ = jax.eval_shape(forward, *args)
    cotangents = _structs(out_shape)
    program = _make_jaxpr(step)(list(args), cotangents).jaxpr
    flops = _count_flops(program)
    compiled = _jit(step).lower(list(args), cotangents).compile()
    analysis = compiled.cost_analysis()
    if isinstance(analysis, (list, tuple)):
        analysis = analysis[0] if analysis else {}
    memory = compiled.memory_analysis()
    return {
        "flops": float(flops),
        "peak_bytes": int(_peak_live_bytes(program)),
        "xla_flops": float(analysis.get("flops", 0.0)),
        "xla_temp_bytes": int(getattr(memory, "temp_size_in_bytes", 0)),
        "xla_peak_bytes": int(getattr(memory, "peak_memory_in_bytes", 0)),
    }
