"""The memory a checkpointing strategy is about: what the backward pass holds while it runs.

``held_peak`` is the most bytes of saved and rematerialized values alive at once during the
backward pass of a case's one differentiation: the residuals the forward pass kept, from the
start of the backward pass to their last use, and every value it recomputes (a checkpoint's
rematerialization), from where it is made to its last use. Arguments, values that depend on no
input (XLA folds them into constants), cotangents and gradients are left out: they are the same
whatever is checkpointed; so are values an offloading policy moved to host memory. An elementwise
result takes the buffer of a same-sized input that dies there, as XLA does, and an
``optimization_barrier`` (which the remat of ``JAX_REMAT3`` puts on a checkpoint's inputs) makes
nothing new.

This is the quantity the statements speak of: a checkpoint whose recomputation comes while
everything else kept is still alive (around the last stage, or the whole function) holds as much
as no checkpoint; one recomputed after other values were released holds less; a checkpoint around
a whole chain recomputes, and holds, the whole chain at once.
"""

from __future__ import annotations

from .jax_internals import ALIASING, bodies, device_bytes, jex_core, memory_kind, var_bytes

_UNCOUNTED = ("argument", "constant", "literal")


def held_peak(derivative, residuals: list[dict]) -> int:
    fwd, bwd = derivative.fwd.jaxpr, derivative.bwd.jaxpr
    n_res = len(residuals)
    from_inputs = depends_on_inputs(fwd, [True] * len(fwd.invars))[derivative.n_out :]
    counted = [r["kind"] not in _UNCOUNTED and dep for r, dep in zip(residuals, from_inputs)]
    n_cot = len(bwd.invars) - n_res
    return _peak(bwd, counted + [False] * n_cot, [False] * n_res + [True] * n_cot, from_inputs + [False] * n_cot)


def held_on_host(derivative) -> int:
    """The bytes the backward pass finds in host memory: the residuals an offloading policy moved
    there, counted apart from ``held_peak`` (device memory, which is what a budget ranks)."""
    return sum(var_bytes(v) for v in derivative.fwd.jaxpr.outvars[derivative.n_out :] if memory_kind(v) != "device")


def depends_on_inputs(jaxpr, marked_in) -> list[bool]:
    """Which outputs of ``jaxpr`` depend on an input marked in ``marked_in``."""
    marked = {v for v, m in zip(jaxpr.invars, marked_in) if m}
    for eqn in jaxpr.eqns:
        ins = [isinstance(v, jex_core.Var) and v in marked for v in eqn.invars]
        if not any(ins):
            continue
        found = bodies(eqn)
        outs = [not found] * len(eqn.outvars)
        for body in found:
            body_in = body.inputs(ins)
            while True:
                body_out = depends_on_inputs(body.jaxpr, body_in)
                if not body.grow(body_in, body_out):
                    break
            outs = [a or b for a, b in zip(outs, body.outputs(body_out))]
        marked.update(v for v, o in zip(eqn.outvars, outs) if o)
    return [isinstance(v, jex_core.Var) and v in marked for v in jaxpr.outvars]


def _peak(jaxpr, counted_in, tangent_in, real_in) -> int:
    """Most bytes of counted values alive at once in ``jaxpr``: the inputs marked ``counted_in``,
    and the values it makes from a real (input-dependent) value and not from a cotangent."""
    tangent = {v for v, t in zip(jaxpr.invars, tangent_in) if t}
    real = {v for v, r in zip(jaxpr.invars, real_in) if r}
    last_use = {}
    for index, eqn in enumerate(jaxpr.eqns):
        last_use.update((v, index) for v in eqn.invars if isinstance(v, jex_core.Var))
    last_use.update((v, len(jaxpr.eqns)) for v in jaxpr.outvars if isinstance(v, jex_core.Var))
    live = {v: device_bytes(v) for v, c in zip(jaxpr.invars, counted_in) if c and v in last_use}
    current = peak = sum(live.values())
    for index, eqn in enumerate(jaxpr.eqns):
        if eqn.primitive.name in ALIASING:  # the same buffers under new names: nothing is made
            for old, new in zip(eqn.invars, eqn.outvars):
                if not isinstance(old, jex_core.Var) or isinstance(new, jex_core.DropVar):
                    continue
                tangent.update([new] if old in tangent else [])
                real.update([new] if old in real else [])
                if old in live and new in last_use:
                    live[new] = live.pop(old) if last_use.get(old) == index else 0
            continue
        variables = [v for v in eqn.invars if isinstance(v, jex_core.Var)]
        dying = [v for v in dict.fromkeys(variables) if last_use.get(v) == index and v in live]
        from_tangent = [v in tangent for v in eqn.invars if isinstance(v, jex_core.Var)]
        ins_t = [isinstance(v, jex_core.Var) and v in tangent for v in eqn.invars]
        ins_r = [isinstance(v, jex_core.Var) and v in real for v in eqn.invars]
        found = bodies(eqn)
        outs_t = [any(from_tangent)] * len(eqn.outvars)
        if found:
            body_peak, outs_t = 0, [False] * len(eqn.outvars)
            for body in found:  # a body counts the dying inputs it takes over, and what it makes
                body_counted = [eqn.invars[i] in dying for i in body.operands]
                body_peak = max(body_peak, _peak(body.jaxpr, body_counted, body.inputs(ins_t), body.inputs(ins_r)))
                body_t = _tangent_outputs(body.jaxpr, body.inputs(ins_t))
                outs_t = [a or b for a, b in zip(outs_t, body.outputs(body_t))]
            peak = max(peak, current - sum(live[v] for v in dying) + body_peak)
        made = [
            v
            for v, t in zip(eqn.outvars, outs_t)
            if not t and any(ins_r) and isinstance(v, jex_core.Var) and v in last_use
        ]
        if not found:
            reusable = sorted((live[v] for v in dying), reverse=True)
            new = 0
            for v in made:
                if device_bytes(v) in reusable:
                    reusable.remove(device_bytes(v))
                else:
                    new += device_bytes(v)
            peak = max(peak, current + new)
        for v in dying:
            current -= live.pop(v)
        tangent.update(v for v, t in zip(eqn.outvars, outs_t) if t)
        if any(ins_r):
            real.update(v for v in eqn.outvars if isinstance(v, jex_core.Var))
        for v in made:
            live[v] = device_bytes(v)
            current += live[v]
        peak = max(peak, current)
    return peak


def _tangent_outputs(jaxpr, tangent_in) -> list[bool]:
    return depends_on_inputs(jaxpr, tangent_in)
