"""Which operations of a traced program are on its differentiated path.

An operation is on it when one of its floating-point results depends on a differentiated input
and reaches an output, through differentiable operations only (``stop_gradient`` cuts the path;
integers and booleans never carry it). A checkpoint behind ``stop_gradient``, or whose result is
thrown away, has nothing on the path: it changes no gradient and saves nothing. Read from the
traced program alone, through calls, checkpoints, loops and branches.
"""

from __future__ import annotations

from .jax_internals import CUTS_GRADIENT, bodies, is_floating, jex_core


def on_path(closed, wrt) -> set:
    """The ids of the equations, at every depth, on the differentiated path of ``closed``."""
    jaxpr = closed.jaxpr
    found: set = set()
    _backward(jaxpr, [i in wrt for i in range(len(jaxpr.invars))], [True] * len(jaxpr.outvars), found)
    return found


def _forward(jaxpr, active_in) -> tuple[set, dict]:
    """The variables that depend on an active input, and each body's active inputs."""
    active = {v for v, a in zip(jaxpr.invars, active_in) if a and is_floating(v)}
    body_inputs = {}
    for eqn in jaxpr.eqns:
        ins = [isinstance(v, jex_core.Var) and v in active for v in eqn.invars]
        if eqn.primitive.name in CUTS_GRADIENT or not any(ins):
            continue
        found = bodies(eqn)
        outs = [not found] * len(eqn.outvars)
        for body in found:
            body_in = body.inputs(ins)
            while True:  # a loop's carries: until what is active stops growing
                active_out = _active_outputs(body.jaxpr, body_in)
                if not body.grow(body_in, active_out):
                    break
            outs = [a or b for a, b in zip(outs, body.outputs(active_out))]
            body_inputs[(id(eqn), id(body.jaxpr))] = body_in
        active.update(v for v, o in zip(eqn.outvars, outs) if o and is_floating(v))
    return active, body_inputs


def _active_outputs(jaxpr, active_in) -> list[bool]:
    active, _ = _forward(jaxpr, active_in)
    return [isinstance(v, jex_core.Var) and v in active for v in jaxpr.outvars]


def _backward(jaxpr, active_in, live_out, found: set) -> list[bool]:
    """Adds what is on the path to ``found``; returns which inputs reach a live output."""
    active, body_inputs = _forward(jaxpr, active_in)
    live = {v for v, flag in zip(jaxpr.outvars, live_out) if flag and isinstance(v, jex_core.Var)}
    for eqn in reversed(jaxpr.eqns):
        outs_live = [v in live for v in eqn.outvars]
        if eqn.primitive.name in CUTS_GRADIENT or not any(outs_live):
            continue
        found_bodies = bodies(eqn)
        if not found_bodies:
            if any(flag and v in active for flag, v in zip(outs_live, eqn.outvars)):
                found.add(id(eqn))
            live.update(v for v in eqn.invars if isinstance(v, jex_core.Var))
            continue
        for body in found_bodies:
            body_live = body.live_outputs(outs_live)
            body_in = body_inputs.get((id(eqn), id(body.jaxpr)), [False] * len(body.jaxpr.invars))
            while True:
                inner: set = set()
                live_in = _backward(body.jaxpr, body_in, body_live, inner)
                if not body.grow_back(body_live, live_in):
                    break
            if inner:
                found.add(id(eqn))
                found |= inner
            live.update(
                v
                for v, flag in zip(eqn.invars, body.live_inputs(live_in, len(eqn.invars)))
                if flag and isinstance(v, jex_core.Var)
            )
    return [v in live for v in jaxpr.invars]
