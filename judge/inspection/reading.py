"""Everything the judge reads from one case, taken from the case's one trace.

``read_case`` calls the submission's entry point once (``replay.trace``) and differentiates the
traced program once (``replay.differentiate``); the structure, the residuals with their
provenance, the cost and the programs for the verifier all come from those. See ``replay`` for
why the checkpoints are marked first, and for what still runs submitted Python (the policies and
custom rules the traced program holds, during that one differentiation).
"""
from __future__ import annotations

from dataclasses import dataclass

from . import activity, cost, memory, policies, provenance, replay, structure
from .jax_internals import _line_of, remat_policy


class NotAPolicy(TypeError):
    """A checkpoint's policy that JAX could not call: said at the checkpoint's line, before
    differentiating (where the call would fail inside JAX, with no line of the submission)."""

    def __init__(self, policy, line: int | None):
        super().__init__(f"'{type(policy).__name__}' object is not callable")
        self.line = line


@dataclass
class Reading:
    structure: dict
    residuals: list[dict]
    derivative: replay.Derivative  # what is exported, printed and costed
    cost: dict | None = None
    programs: dict | None = None  # printed forward and backward programs


def read_case(fn, arrays, wrt, arg_names, filename: str, *, measure: bool = False, xla: bool = False,
              baseline: bool = False, printed: bool = False) -> Reading:
    """``measure``: the cost of the gradient step (``xla``: with XLA's own estimates, which cost a
    compilation); ``baseline``: also the memory the same program holds without its checkpoints;
    ``printed``: the forward and backward programs as text."""
    closed = replay.trace(fn, arrays)  # the only call of the entry point
    described = {}

    def policy_for(eqn):
        policy = remat_policy(eqn)
        if policy is not None and not callable(policy):
            raise NotAPolicy(policy, _line_of(eqn.source_info, filename))
        found = described[id(eqn)] = policies.describe(policy, filename)
        return found.rebuilt if found.rebuilt is not None else policy

    marked = replay.mark(closed, policy_for)
    found = structure.checkpoint_structure(closed, described, activity.on_path(closed, set(wrt)), filename)
    derivative = replay.differentiate(marked.program, arrays, wrt)
    residuals = provenance.saved_residuals(derivative, marked, arg_names, filename)
    reading = Reading(found, residuals, derivative)
    if measure:
        reading.cost = cost.step_cost(derivative, xla=xla, filename=filename) | {"held_peak_bytes": memory.held_peak(derivative, residuals)}
        if baseline and not found["custom_derivatives"]:  # their rules would run a second time
            without = replay.differentiate(replay.without_checkpoints(closed), arrays, wrt)
            kinds = provenance.saved_residuals(without, replay.Marked(closed), arg_names, filename)  # nothing marked
            reading.cost["plain_held_peak_bytes"] = memory.held_peak(without, kinds)
    if printed:
        reading.programs = {"forward": str(derivative.fwd.jaxpr), "backward": str(derivative.bwd.jaxpr)}
    return reading
