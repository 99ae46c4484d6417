"""The bytes alive while a traced program runs in order: its peak, and for one gradient step the
walk written down operation by operation (the memory picture Inspect draws)."""

from __future__ import annotations

from .jax_internals import _line_of, jex_core, var_bytes


def peak_live_bytes(jaxpr, trace: Trace | None = None, base: int = 0, marks: list | None = None) -> int:
    """Most bytes alive at once while the program runs in order, inputs included.

    A value lives from the equation that makes it to its last use. Calls, checkpoints and loop
    bodies add their own peak above their inputs while they run, so the memory a checkpoint
    needs when its recomputation happens on the backward pass is counted where it happens.

    With a ``trace`` (the timeline of ``step_timeline``), the same walk also writes down each
    operation that runs, innermost first, with the bytes alive while it runs (``base``: what the
    enclosing program holds around this one; ``marks``: per input, its flags in the trace), so
    that the curve's highest point is this peak.
    """
    last_use = {}
    for index, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if isinstance(v, jex_core.Var):
                last_use[v] = index
    for v in jaxpr.outvars:
        if isinstance(v, jex_core.Var):
            last_use[v] = len(jaxpr.eqns)
    live = {v: var_bytes(v) for v in list(jaxpr.invars) + list(jaxpr.constvars)}
    current = sum(live.values())
    peak = current
    flags = dict(zip(jaxpr.invars, marks or [])) if trace is not None else {}
    for index, eqn in enumerate(jaxpr.eqns):
        inner, widest = 0, None
        for sub in jex_core.jaxprs_in_params(eqn.params):
            above = peak_live_bytes(sub) - sum(var_bytes(v) for v in sub.invars)
            if widest is None or above > inner:
                widest = sub
            inner = max(inner, above)
        made = sum(var_bytes(v) for v in eqn.outvars)
        peak = max(peak, current + max(inner, 0) + made)
        if trace is not None:
            flags.update(trace.run(eqn, index, widest, base + current + made, flags))
        for v in eqn.outvars:
            if not isinstance(v, jex_core.DropVar) and v in last_use:
                live[v] = var_bytes(v)
                current += live[v]
        for v in {v for v in eqn.invars if isinstance(v, jex_core.Var)}:
            if last_use.get(v) == index and v in live:
                current -= live.pop(v)
    return peak


class Trace:
    """The operations of one gradient step in the order they run, written down by
    ``peak_live_bytes``: each one's bytes alive, whether it belongs to the backward pass, whether
    it recomputes (it makes a value from saved or input values, none of it from the cotangent,
    on the backward pass), and which saved residuals it reads.

    Flags per value: ``"t"`` it depends on the cotangent; ``"r<i>"`` it is residual ``i``."""

    def __init__(self, top_lines: list, backward_from: int, residual_of: dict, line_of):
        self.steps: list[list] = []
        self.top_lines, self.backward_from, self.residual_of, self.line_of = (
            top_lines,
            backward_from,
            residual_of,
            line_of,
        )
        self.top = None  # the index of the top-level equation being walked
        self.ranges: dict[int, tuple[int, int]] = {}  # top-level equation -> its steps
        self.uses: dict[int, list[int]] = {}  # residual -> the steps that read it

    def run(self, eqn, index: int, body, around: int, flags: dict) -> dict:
        top = self.top is None
        if top:
            self.top = index
        first = len(self.steps)
        ins = [flags.get(v, frozenset()) if isinstance(v, jex_core.Var) else frozenset() for v in eqn.invars]
        if body is not None:
            # align the body's inputs with the equation's from the end (a cond's branches leave out
            # its index, a loop's condition its body's constants)
            n = min(len(body.invars), len(ins))
            inner = [frozenset()] * (len(body.invars) - n) + ins[len(ins) - n :]
            peak_live_bytes(body, self, around - sum(var_bytes(v) for v in body.invars), inner)
        else:
            # a top-level equation of the step was made again by tracing the step: its line is
            # the one of the forward or backward program's equation it stands for
            line = self.top_lines[index] if top and index < len(self.top_lines) else self.line_of(eqn)
            self._step(eqn, around, ins, line)
        tangent = any("t" in f for f in ins)
        if top:
            self.ranges[index] = (first, max(first, len(self.steps) - 1))
            self.top = None
        out = frozenset({"t"}) if tangent else frozenset()
        return {v: out | self.residual_of.get(v, frozenset()) for v in eqn.outvars if isinstance(v, jex_core.Var)}

    def _step(self, eqn, live: int, ins: list, line) -> None:
        backward = self.top >= self.backward_from
        variables = [f for f, v in zip(ins, eqn.invars) if isinstance(v, jex_core.Var)]
        recomputed = backward and bool(variables) and not any("t" in f for f in variables)
        for f in ins:
            for mark in f:
                if mark.startswith("r"):
                    self.uses.setdefault(int(mark[1:]), []).append(len(self.steps))
        self.steps.append([eqn.primitive.name, line, int(live), backward, recomputed])


def step_timeline(derivative, program, filename: str | None) -> tuple[dict | None, int]:
    """The memory of one gradient step over time, as ``peak_live_bytes`` counts it: per operation
    run (forward, then backward; inside calls and checkpoints, their operations), the bytes alive
    while it runs, its line, and whether it recomputes; per saved residual, where it is made and
    where the backward pass reads it. The wire form of ``judge.data.evidence.Timeline``.

    With the peak that walk found. (None, 0) where the step's program does not line up with the
    forward and backward programs (it is traced from them, one equation for each)."""
    fwd, bwd = derivative.fwd.jaxpr, derivative.bwd.jaxpr
    if len(program.eqns) != len(fwd.eqns) + len(bwd.eqns):
        return None, 0
    originals = list(fwd.eqns) + list(bwd.eqns)
    line_of = (lambda eqn: _line_of(eqn.source_info, filename)) if filename else (lambda eqn: None)
    made_by = {v: (k, q) for k, eqn in enumerate(fwd.eqns) for q, v in enumerate(eqn.outvars)}
    residual_of, marks, produced = {}, [frozenset()] * len(program.invars), {}
    n_in = len(fwd.invars)
    for i, v in enumerate(fwd.outvars[derivative.n_out :]):
        if not isinstance(v, jex_core.Var):
            continue  # a literal: nothing is held
        if v in fwd.invars:
            j = fwd.invars.index(v)
            marks[j] = marks[j] | {f"r{i}"}
            produced[i] = None
        elif v in made_by:
            k, q = made_by[v]
            residual_of.setdefault(program.eqns[k].outvars[q], set()).add(f"r{i}")
            produced[i] = k
    marks[n_in:] = [frozenset({"t"})] * (len(program.invars) - n_in)
    trace = Trace(
        [line_of(e) for e in originals], len(fwd.eqns), {v: frozenset(m) for v, m in residual_of.items()}, line_of
    )
    peak = peak_live_bytes(program, trace, 0, marks)
    starts = [trace.ranges[k][0] for k in range(len(fwd.eqns), len(program.eqns)) if k in trace.ranges]
    backward_from = min(starts) if starts else len(trace.steps)
    residuals = []
    for i, v in enumerate(fwd.outvars[derivative.n_out :]):
        if i not in produced:
            continue
        made = -1 if produced[i] is None else trace.ranges[produced[i]][1]
        used = [u for u in trace.uses.get(i, []) if u >= backward_from]  # read by the backward pass
        residuals.append([i, var_bytes(v), made, min(used) if used else None, max(used) if used else None])
    return {
        "steps": trace.steps,
        "residuals": residuals,
        "backward_from": backward_from,
        "start_bytes": int(sum(var_bytes(v) for v in program.invars[:n_in])),
    }, peak
