"""The forward and backward programs of a submission: printed for the learner, exported with
``jax.export`` in the child, and read back, checked and refused if they call out of XLA (custom
calls, callbacks, effects) in the verifier, where no submitted code runs."""

from __future__ import annotations

import jax
import numpy as np

from .jax_internals import STABLE_CUSTOM_CALL_TARGETS, _jaxpr_as_fun, _jit, without_locations
from .replay import structs


class ProgramRefused(ValueError):
    """An exported program the verifier will not compile or run, with the reason."""


def export_programs(derivatives) -> dict:
    """Export, for all distinct programs at once (their ``replay.Derivative``, one per trace: cases
    of the same shapes share one), the forward program (inputs -> outputs and residuals) and the
    backward program (residuals, cotangents -> gradients): the very programs the cases' readings
    were taken from.

    One bundle keeps the cost of lowering (here) and of compiling (in the verifier) to one of
    each, and a program shared by several cases is exported and compiled once. Returns the two
    serialized programs as byte arrays.
    """
    from jax import export

    def forward(all_arrays):
        per_case = []
        for d, arrays in zip(derivatives, all_arrays):
            flat = _jaxpr_as_fun(d.fwd)(*arrays)
            per_case.append((flat[: d.n_out], flat[d.n_out :]))
        return per_case

    def backward(all_residuals, all_cotangents):
        return [_jaxpr_as_fun(d.bwd)(*res, *ct) for d, res, ct in zip(derivatives, all_residuals, all_cotangents)]

    fwd = export.export(_jit(forward))([structs(d.fwd.in_avals) for d in derivatives])
    bwd = export.export(_jit(backward))(
        [structs(d.residual_avals) for d in derivatives], [structs(d.output_avals) for d in derivatives]
    )
    return {
        "fwd": np.frombuffer(bytes(without_locations(fwd).serialize()), dtype=np.uint8),
        "bwd": np.frombuffer(bytes(without_locations(bwd).serialize()), dtype=np.uint8),
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


def serialize_compiled(compiled) -> np.ndarray | None:
    """XLA's executable of ``compiled`` as bytes, for the grading parent to keep
    (``judge.grading.compiled_programs``); None where the backend cannot serialize it."""
    from jax.experimental import serialize_executable

    try:
        payload, _, _ = serialize_executable.serialize(compiled)
    except (ValueError, NotImplementedError, TypeError, RuntimeError):
        return None
    return np.frombuffer(payload, dtype=np.uint8)


def load_compiled(data: np.ndarray, lowered):
    """The executable kept from an earlier verifier of the same programs, types and learner, for
    ``lowered`` (whose argument and result structure it must have); None where it does not load
    (another JAX or XLA, damaged bytes): the caller then compiles. The bytes are not untrusted
    input in the sense of the submission's: see ``judge.grading.compiled_programs`` on who can
    write them."""
    from jax.experimental import serialize_executable

    try:
        return serialize_executable.deserialize_and_load(
            np.asarray(data, np.uint8).tobytes(), jax.tree_util.tree_structure(lowered.args_info), lowered.out_tree
        )
    except Exception:  # noqa: BLE001 - any failure to load means: compile instead
        return None
