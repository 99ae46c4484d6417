"""The child's memory picture of one gradient step (``timeline``), and XLA's own figures of a
compiled step, shown beside the verifier's for reference. The figures the rules read are counted
by the verifier (``judge.inspection.program_cost``)."""

from __future__ import annotations

from .jax_internals import _jaxpr_as_fun, _make_jaxpr
from .replay import structs
from .timeline import step_timeline


def xla_figures(compiled) -> dict:
    """XLA's own figures of a compiled program (``Cost``'s ``xla_`` fields): its count of operations
    (``xla_operations``), its temporary bytes and its peak, from its cost and memory analyses."""
    analysis = compiled.cost_analysis()
    if isinstance(analysis, (list, tuple)):
        analysis = analysis[0] if analysis else {}
    memory = compiled.memory_analysis()
    return {
        "xla_flops": xla_operations(analysis or {}),
        "xla_temp_bytes": int(getattr(memory, "temp_size_in_bytes", 0)),
        "xla_peak_bytes": int(getattr(memory, "peak_memory_in_bytes", 0)),
    }


def step_picture(derivative, filename: str | None = None) -> dict:
    """The memory picture of one gradient step (``step_timeline``), and nothing the rules read:
    the step's figures are measured by the verifier (``judge.inspection.program_cost``)."""

    def step(arrays, cotangents):
        flat = _jaxpr_as_fun(derivative.fwd)(*arrays)
        return flat[: derivative.n_out], _jaxpr_as_fun(derivative.bwd)(*flat[derivative.n_out :], *cotangents)

    program = _make_jaxpr(step)(structs(derivative.fwd.in_avals), structs(derivative.output_avals)).jaxpr
    timeline, _ = step_timeline(derivative, program, filename)
    return {} if timeline is None else {"timeline": timeline}


def xla_operations(analysis: dict) -> float:
    """XLA's count of a program's operations, as ours counts them: XLA keeps transcendental
    functions (exp, tanh...) apart from its ``flops``; ours counts each as one operation."""
    return float(analysis.get("flops", 0.0)) + float(analysis.get("transcendentals", 0.0))
