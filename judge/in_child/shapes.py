"""The explorer's two requests by types (``judge.data.shape_messages``), on the child's side.

``trace_shapes`` is answered by ``child`` itself: a ``trace`` whose arrays are placeholders.

``verify_shapes`` is a ``verify`` of figures only (``numbers=False``: the programs are checked,
lowered and walked, never run), followed by what only a compiler can say: each program of the
bundle (one per plan) compiled alone, as ``jax.jit(step).lower(types).compile()``, and XLA's
``memory_analysis()`` and ``cost_analysis()`` of it. Compiling allocates none of the program's
buffers: XLA plans them. ``compile_s`` bounds the time spent compiling in all; the plans it does
not reach keep the walk's figures, and their XLA figures stay unknown (None).

``describe`` is the submission's child's answer to ``describe_module`` (``child`` loads the
source, in the sandbox, and hands it the object): what the name the explorer was given stands
for, and for a module of Equinox or Flax NNX the types of its parameters, which become the
arguments of the explored call. The explorer's harness (``judge.explorer.harness``) splits
the module in the same way when it calls it: ``is_parameter`` decides for both.
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


def is_parameter(leaf) -> bool:
    """A leaf of a module that is one of its parameters: a floating-point array, or the type of one
    (a module built with ``eqx.filter_eval_shape``, ``jax.eval_shape`` or ``nnx.eval_shape``)."""
    import jax
    import numpy as np

    return isinstance(leaf, (jax.Array, np.ndarray, jax.ShapeDtypeStruct)) and jax.numpy.issubdtype(
        leaf.dtype, jax.numpy.floating
    )


def _nnx():
    """Flax NNX where the child has it (imported already with the modules submissions may import)."""
    import sys

    return sys.modules.get("flax.nnx")


def describe(obj, entry: str):
    """``obj`` (the value of ``entry`` in the learner's module) described for the explorer, or a
    sentence saying why the explorer cannot use it."""
    import inspect

    import equinox as eqx
    import jax

    from ..data.shape_messages import (
        EQUINOX,
        FUNCTION,
        MAX_PARAMETERS,
        MAX_PATH,
        NNX,
        ArrayType,
        ModuleDescribed,
        Parameter,
    )

    nnx = _nnx()
    if isinstance(obj, eqx.Module):
        library, (params, rest) = EQUINOX, eqx.partition(obj, is_parameter)
    elif nnx is not None and isinstance(obj, nnx.Module):
        _, state = nnx.split(obj)
        library, params, rest = NNX, state, None
    elif isinstance(obj, type):
        return (
            f"{entry} is a class: build the module at the top level of the source "
            f"(model = eqx.filter_eval_shape({entry}, ...) builds it from shapes) and name it"
        )
    elif callable(obj):
        return ModuleDescribed(FUNCTION, [], _inputs(inspect, obj, 0))
    else:
        return (
            f"{entry} is a value of type {type(obj).__name__}, not a function, an Equinox module or a "
            "Flax NNX module: name one of those"
        )
    if not callable(obj):
        return f"{entry} is a module with no __call__: the explorer explores a module's call"
    parameters, unusable = [], []
    for path, leaf in jax.tree_util.tree_leaves_with_path(params):
        where = _nnx_path(path) if library == NNX else jax.tree_util.keystr(path)
        if is_parameter(leaf):
            parameters.append(Parameter(where, ArrayType(np_name(leaf.dtype), [int(d) for d in leaf.shape])))
        elif isinstance(leaf, jax.ShapeDtypeStruct):
            unusable.append((where, leaf))  # in an NNX state: a type of another dtype, which no value stands for
    # in an Equinox module, what is not a parameter stays in it as it is; only a type cannot
    unusable += [
        (jax.tree_util.keystr(path), leaf)
        for path, leaf in jax.tree_util.tree_leaves_with_path(rest)
        if isinstance(leaf, jax.ShapeDtypeStruct)
    ]
    if unusable:
        where, leaf = unusable[0]
        return (
            f"{entry}{where} is the type of a {leaf.dtype} array, not a floating-point one (a random key, a "
            "count): the explorer stands no value in for it. Build that part of the module with real values, "
            "or without it (a layer without its random stream, such as nnx.Dropout(0.1, deterministic=True))"
        )
    if not parameters:
        return f"{entry} has no floating-point arrays to differentiate"
    if len(parameters) > MAX_PARAMETERS:
        return (
            f"{entry} has {len(parameters)} arrays; the explorer takes at most {MAX_PARAMETERS}: stack the "
            "layers' weights and run them with jax.lax.scan, or explore fewer layers"
        )
    long = next((p.path for p in parameters if len(p.path) > MAX_PATH), None)
    if long is not None:
        return f"{entry}{long[:60]}...: a parameter's place in the module is written in at most {MAX_PATH} characters"
    return ModuleDescribed(library, parameters, _inputs(inspect, type(obj).__call__, 1))


def _nnx_path(path) -> str:
    """A leaf's path in an NNX state, written as the module's attributes: ``.layers[0].kernel``
    (``jax.tree_util.keystr`` writes ``['layers'][0]['kernel'].value``)."""
    parts = []
    for entry in path:
        key = getattr(entry, "key", getattr(entry, "name", getattr(entry, "idx", entry)))
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return "".join(parts[:-1] if parts and parts[-1] == ".value" else parts)


def np_name(dtype) -> str:
    import numpy as np

    return np.dtype(dtype).name


def _inputs(inspect, obj, skip: int) -> list[str]:
    """The positional parameters of ``obj``, by name, less the first ``skip`` (a method's self);
    [] where unknown."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in signature.parameters.values() if p.kind in kinds][skip : skip + 64]
    return names if all(n.isidentifier() and len(n) <= 100 for n in names) else []
