"""The explorer's two requests by types (``judge.data.shape_messages``), on the child's side.

``trace_shapes`` is answered by ``child`` itself: a ``trace`` whose arrays are placeholders.

``verify_shapes`` is a ``verify`` of figures only (``numbers=False``: the programs are checked,
lowered and walked, never run), followed by what only a compiler can say: each program of the
bundle (one per plan) compiled alone, as ``jax.jit(step).lower(types).compile()``, and XLA's
``memory_analysis()`` and ``cost_analysis()`` of it. Compiling allocates none of the program's
buffers: XLA plans them. ``compile_s`` bounds the time spent compiling in all; the plans it does
not reach keep the walk's figures, and their XLA figures stay unknown (None).
"""

from __future__ import annotations

import time
from dataclasses import replace


def verify(request):
    from ..data.messages import Verified
    from . import verify as verifier

    answer = verifier.serve(request.filled())
    if not isinstance(answer, Verified) or request.compile_s <= 0:
        return answer
    deadline = time.monotonic() + request.compile_s
    figures = compiled_figures(request.verify, deadline)
    for case in answer.cases:
        found = figures.get(next(c.program for c in request.verify.cases if c.name == case.name))
        if found is not None and case.cost is not None:
            case.cost = replace(case.cost, **found)
    return answer


def compiled_figures(request, deadline: float) -> dict[int, dict]:
    """Per program of the bundle, XLA's figures of its gradient step compiled alone (the other
    programs' work dropped as dead code), until ``deadline``. The programs have passed every check
    of ``verify.serve`` by now; each lowered step is checked again before it is compiled."""
    import jax
    import numpy as np

    from ..inspection import programs
    from ..inspection.cost import xla_operations

    fwd = programs.load_program(np.asarray(request.fwd, dtype=np.uint8).tobytes())
    bwd = programs.load_program(np.asarray(request.bwd, dtype=np.uint8).tobytes())
    first: dict[int, object] = {}
    for case in request.cases:
        first.setdefault(case.program, case)
    ordered = [first[p] for p in sorted(first)]

    def types(arrays):
        return [jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype) for a in arrays]

    inputs = [types(c.inputs) for c in ordered]
    cotangents = [types(c.cotangent) for c in ordered]
    figures: dict[int, dict] = {}
    for p in range(len(ordered)):
        if time.monotonic() > deadline:
            break

        def step(mine, my_cotangents, p=p):
            # this program's inputs as arguments; the others' zeros, their work dead code
            per_program = fwd.call([mine if q == p else [_zeros(t) for t in ts] for q, ts in enumerate(inputs)])
            residuals = [res for _, res in per_program]
            cts = [my_cotangents if q == p else [_zeros(t) for t in ts] for q, ts in enumerate(cotangents)]
            return per_program[p][0], bwd.call(residuals, cts)[p]

        try:
            lowered = jax.jit(step).lower(inputs[p], cotangents[p])
            programs.check_lowered(lowered)
            compiled = lowered.compile()
        except Exception:  # noqa: BLE001 - XLA's own failure for one plan: its figures stay unknown
            continue
        analysis = compiled.cost_analysis()
        if isinstance(analysis, (list, tuple)):
            analysis = analysis[0] if analysis else {}
        figures[p] = {"xla_flops": xla_operations(analysis or {}), **memory_figures(compiled.memory_analysis())}
    return figures


def _zeros(typed):
    import jax.numpy as jnp

    return jnp.zeros(typed.shape, typed.dtype)


def memory_figures(stats) -> dict:
    """XLA's memory analysis of a compiled step: its temporaries, and its peak: the arguments,
    outputs and temporaries together, less what the outputs alias (XLA's temporaries are one
    allocation, already reused over the step), or the backend's own peak where it is larger.
    XLA's CPU backend reports the arguments and outputs alone as its peak (JAX 0.10.2)."""

    def size(name: str) -> int:
        return int(getattr(stats, name, 0) or 0)

    temp = size("temp_size_in_bytes")
    held = size("argument_size_in_bytes") + size("output_size_in_bytes") - size("alias_size_in_bytes")
    return {"xla_temp_bytes": temp, "xla_peak_bytes": max(size("peak_memory_in_bytes"), held + temp)}
