"""The forward and backward programs of a submission: printed for the learner, exported with
``jax.export`` in the child, and read back, checked and refused if they call out of XLA (custom
calls, callbacks, effects) in the verifier, where no submitted code runs."""
from __future__ import annotations

import jax
import numpy as np

from .jax_internals import (STABLE_CUSTOM_CALL_TARGETS, _jit, _make_jaxpr, _ShapeDtypeStruct, _tree_flatten,
                            _tree_leaves, _tree_unflatten, _vjp)
from .provenance import _split


def _vjp_parts(fn, wrt):
    """``forward(*arrays) -> (output leaves, residual leaves)`` for ``jax.vjp`` with respect to
    ``wrt``, and a ``backward(residuals, cotangent leaves) -> gradients`` that undoes the split;
    ``backward`` needs the structures ``forward`` records while it is traced."""
    shapes: dict = {}

    def forward(*flat):
        def of_diff(*diff):
            full = list(flat)
            for i, value in zip(wrt, diff):
                full[i] = value
            return fn(*full)

        out, vjp_fn = _vjp(of_diff, *(flat[i] for i in wrt))
        out_leaves, shapes["out"] = _tree_flatten(out)
        res_leaves, shapes["res"] = _tree_flatten(vjp_fn)
        return out_leaves, res_leaves

    def backward(res_leaves, cotangent_leaves):
        vjp_fn = _tree_unflatten(shapes["res"], list(res_leaves))
        return list(vjp_fn(_tree_unflatten(shapes["out"], list(cotangent_leaves))))

    return forward, backward


def _structs(avals):
    return [_ShapeDtypeStruct(a.shape, a.dtype) for a in avals]


def fwd_bwd_programs(fn, args, wrt) -> tuple[str, str]:
    """The forward program of ``jax.vjp`` (outputs and residuals) and the backward program.

    Both are traced, never run: printing them costs no compilation.
    """
    with_all, diff, rest, _ = _split(args, wrt)
    traced = with_all(fn)
    tree = {}

    def vjp_of(*diff_part):
        out, vjp_fn = _vjp(lambda *d: traced(*d, *rest), *diff_part)
        tree["res"] = _tree_flatten(vjp_fn)[1]
        return out, vjp_fn

    closed, (out_shape, vjp_shape) = _make_jaxpr(vjp_of, return_shape=True)(*diff)
    res_shapes = _tree_leaves(vjp_shape)

    def backward(*flat):
        *res_part, cotangent = flat
        return _tree_unflatten(tree["res"], res_part)(cotangent)

    bwd = _make_jaxpr(backward)(*res_shapes, out_shape).jaxpr
    return str(closed.jaxpr), str(bwd)


class ProgramRefused(ValueError):
    """An exported program the verifier will not compile or run, with the reason."""


def export_programs(cases, wrt) -> dict:
    """Export, for all ``cases`` (pairs of a function and its arrays) at once, the forward program
    (inputs -> outputs and residuals) and the backward program (residuals, cotangents -> gradients).

    One bundle for all cases keeps the cost of lowering (here) and of compiling (in the verifier)
    to one of each. Returns the two serialized programs as byte arrays.
    """
    from jax import export

    parts = [_vjp_parts(fn, wrt) for fn, _ in cases]

    def forward(all_arrays):
        return [part[0](*arrays) for part, arrays in zip(parts, all_arrays)]

    def backward(all_residuals, all_cotangents):
        return [part[1](res, ct) for part, res, ct in zip(parts, all_residuals, all_cotangents)]

    inputs = [[_ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype) for a in arrays] for _, arrays in cases]
    fwd = export.export(_jit(forward))(inputs)
    per_case = _tree_unflatten(fwd.out_tree, list(fwd.out_avals))
    residuals = [_structs(res) for _, res in per_case]
    cotangents = [_structs(out) for out, _ in per_case]
    bwd = export.export(_jit(backward))(residuals, cotangents)
    return {
        "fwd": np.frombuffer(bytes(fwd.serialize()), dtype=np.uint8),
        "bwd": np.frombuffer(bytes(bwd.serialize()), dtype=np.uint8),
    }


def load_program(blob: bytes):
    """Deserialize an exported program that a child (an attacker, maybe) made, and check what it
    declares: one device, this platform, no effects (host callbacks), no shape polymorphism, no
    disabled safety checks. Its operations are checked once it is lowered (``check_lowered``)."""
    from jax import export

    try:
        exported = export.deserialize(bytearray(blob))
    except Exception as exc:  # noqa: BLE001 - malformed bytes from an untrusted child
        raise ProgramRefused(f"the exported program could not be read ({type(exc).__name__})") from None
    platform = jax.default_backend()
    if exported.nr_devices != 1 or tuple(exported.platforms) != (platform,):
        raise ProgramRefused(f"the program was exported for {exported.platforms} on {exported.nr_devices} device(s)")
    if exported.ordered_effects or exported.unordered_effects:
        raise ProgramRefused("the program has side effects (host callbacks or similar)")
    if exported.uses_global_constants or exported.disabled_safety_checks:
        raise ProgramRefused("the program uses shape polymorphism or disabled safety checks")
    return exported


def check_lowered(lowered) -> None:
    """Refuse a lowered program (the very module XLA will compile, exported programs inlined)
    that leaves XLA's own operations: custom calls outside the targets JAX guarantees stable,
    which is where host callbacks and native code live, and host transfers."""
    allowed = STABLE_CUSTOM_CALL_TARGETS
    refused = []

    def visit(op) -> None:
        name = op.operation.name
        if name == "stablehlo.custom_call":
            target = str(op.operation.attributes["call_target_name"]).strip('"')
            if target not in allowed:
                refused.append(f"custom call {target!r}")
        elif name in ("stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv"):
            refused.append(name)
        for region in op.operation.regions:
            for block in region:
                for inner in block:
                    visit(inner)

    visit(lowered.compiler_ir("stablehlo"))
    if refused:
        raise ProgramRefused(f"the program calls out of XLA: {', '.join(sorted(set(refused)))}")
