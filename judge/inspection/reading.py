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

    def __init__(self, policy, line: int | None, factory: str | None = None):
        super().__init__(
            f"'{type(policy).__name__}' object is not callable"
            if factory is None
            else f"{factory} is a factory of policies, not a policy: call it with its arguments, and "
            f"pass what it returns as policy="
        )
        self.line = line


@dataclass
class Reading:
    structure: dict
    residuals: list[dict]
    derivative: replay.Derivative  # what is exported, printed and costed
    cost: dict | None = None
    programs: dict | None = None  # printed forward and backward programs


def read_case(
    fn, arrays, wrt, arg_names, filename: str, *, measure: bool = False, baseline: bool = False, printed: bool = False
) -> Reading:
    """``measure``: the gradient step's memory over time, for the memory picture; ``baseline``:
    the memory the same program holds without its checkpoints;
    ``printed``: the forward and backward programs as text."""
    closed = replay.trace(fn, arrays)  # the only call of the entry point
    described = {}

    def policy_for(eqn):
        policy = remat_policy(eqn)
        factory = policies.factory_name(policy)
        if policy is not None and (not callable(policy) or factory is not None):
            # JAX 0.10.2 fails on an uncalled factory only when its remat calls the policy (the
            # remat of JAX_REMAT3 does not), and then inside JAX: said here, the same either way.
            raise NotAPolicy(policy, _line_of(eqn.source_info, filename), factory)
        found = described[id(eqn)] = policies.describe(policy, filename)
        return found.rebuilt if found.rebuilt is not None else policy

    marked = replay.mark(closed, policy_for)
    found = structure.checkpoint_structure(closed, described, activity.on_path(closed, set(wrt)), filename)
    derivative = replay.differentiate(marked.program, arrays, wrt)
    residuals = provenance.saved_residuals(derivative, marked, arg_names, filename)
    reading = Reading(found, residuals, derivative)
    if measure:  # wording only (the memory picture): the figures rules read are the verifier's
        reading.cost = cost.step_picture(derivative, filename=filename)
    if baseline and not found["custom_derivatives"]:  # their rules would run a second time
        # the memory the same program holds without its checkpoints: asked of the reference only,
        # whose code is the judge's own (``rules.check_cost`` compares a submission with it)
        without = replay.differentiate(replay.without_checkpoints(closed), arrays, wrt)
        kinds = provenance.saved_residuals(without, replay.Marked(closed), arg_names, filename)  # nothing marked
        reading.cost = (reading.cost or {}) | {"plain_held_peak_bytes": memory.held_peak(without, kinds)}
    if printed:
        reading.programs = {"forward": str(derivative.fwd.jaxpr), "backward": str(derivative.bwd.jaxpr)}
    return reading
