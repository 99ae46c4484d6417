"""Trusted verification: the numbers a verdict rests on come from a process where no submitted code ran.

The child that runs a submission can lie: once its code has run, it may have patched JAX or the
judge's own inspection before reporting. So that child computes no numbers. It exports its
forward program (inputs -> outputs and the residuals that reverse mode saves) and its backward
program (residuals and cotangents -> gradients) with ``jax.export``; a second child, the
verifier, forked from the zygote and given only those two serialized programs and inputs,
deserializes them, refuses any that call out of XLA (``inspection.programs.load_program`` and
``check_lowered``), checks that they take the case's inputs and that the backward program takes
exactly the residuals the forward one produces, compiles the pair as one XLA program (one forward
and one backward program per distinct shape of the cases: cases of the same shapes share one,
run in turn) and runs it on each case twice:

* on the case's own inputs, for the learner-facing comparison;
* on hidden inputs of the same shapes (drawn with a salt that never leaves the parent) with a
  hidden cotangent, so that a program that merely knows the answers for the inputs it was
  given (constants baked in by a lying child) fails.

What this guarantees: the values, gradients and the count, types, bytes and memories (device or
host, as the exported program types them) of the residuals are
those of the program that will really run; a child cannot make wrong numbers pass or claim to
save less than its program saves. What it does not: the identity of the checkpoint policy and
the provenance of each residual (which primitive, which line) are only visible in the traced
program, so they still come from the submission's child, protected by the static gate and by
``judge.inspection`` reading through references bound before any submission was imported. A
program that saves the same residuals by other means (a hand-written ``custom_vjp`` that lies about
itself) is the gap; its numbers and memory use are still what the verdict says.

The verifier parses and compiles attacker-made bytes, so it runs in the same sandbox as the
submission's child.
"""

from __future__ import annotations

import numpy as np

from ..data import saved_values, verdicts
from ..data.evidence import DEVICE, Aval, Cost
from ..data.messages import CaseError, Failed, Mismatched, Verified, VerifiedCase, VerifyCase, VerifyRequest
from ..data.specs import numpy_dtype

COTANGENT_STREAM = 7919


# ---------------------------------------------------------------------------- parent side


def cotangent(outputs: list[Aval], seed: int, salt: int | None = None) -> list[np.ndarray]:
    """The cotangent fed to the backward program, one array per output leaf.

    For the case's own inputs: ones for a scalar output (the gradient of the value itself) and a
    seeded random array otherwise. For the hidden run every leaf is random, scalars included, so
    that a backward program returning constants cannot match.
    """
    rng = np.random.default_rng(seed + COTANGENT_STREAM if salt is None else [seed, salt, COTANGENT_STREAM])
    leaves = []
    for out in outputs:
        dtype = numpy_dtype(out.dtype)
        if not out.shape and salt is None:
            leaves.append(np.ones((), dtype))
        else:
            leaves.append(np.asarray(rng.standard_normal(out.shape)).astype(dtype))
    return leaves


# ---------------------------------------------------------------------------- verifier side


class _Mismatch(Exception):
    """The forward program's outputs are not of the expected types: a wrong answer, not an attack."""

    def __init__(self, outputs: list):
        self.outputs = outputs


def warm_up() -> None:
    """Start the backend and the compiler on a program of the judge's own, before the request
    arrives (while the submission's child is still tracing, or before the grading, for a
    verifier forked ahead): their first use costs more than the verification itself. The
    program is a gradient through matrix products, since the first run in a process of products
    and of their transposes costs 30-40 ms of CPU once (measured on checkpoint_dot_policy's
    programs: 4-12 ms to run them after this warm-up, 30-50 ms after an elementwise one, or after
    a product alone). Measured, a full dry run of the verifier's path here saves no more time
    than this."""
    import jax
    import jax.numpy as jnp

    def loss(w, x):
        return jnp.sum(jnp.maximum(x @ w, 0) ** 2)

    step = jax.jit(jax.grad(loss, argnums=(0, 1)))
    jax.block_until_ready(step(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)))


def serve(request: VerifyRequest) -> Verified | Mismatched | Failed:
    """The verifier's one request (``judge.in_child.child.HANDLERS``)."""
    import jax

    from ..inspection import programs

    try:  # nothing of these bytes is compiled or run before every check below has passed
        fwd = programs.load_program(np.asarray(request.fwd, dtype=np.uint8).tobytes())
        bwd = programs.load_program(np.asarray(request.bwd, dtype=np.uint8).tobytes())
        bundle = _Bundle(request.cases)
        layout = _layout(fwd, bwd, bundle, request.wrt)
    except programs.ProgramRefused as exc:
        return Failed(CaseError("runtime_error", f"the judge refused your program: {exc}"))
    except _Mismatch as mismatch:
        return Mismatched([VerifiedCase(c.name, _avals(outs)) for c, outs in zip(request.cases, mismatch.outputs)])

    def program(inputs, cotangents):
        per_program = fwd.call(inputs)
        outs = [out for out, _ in per_program]
        residuals = [res for _, res in per_program]
        grads = bwd.call(residuals, cotangents)
        return outs, grads, residuals

    cases = request.cases
    try:
        lowered = jax.jit(program).lower(*bundle.arguments(0, hidden=False))
        programs.check_lowered(lowered)
    except programs.ProgramRefused as exc:
        return Failed(CaseError("runtime_error", f"the judge refused your program: {exc}"))
    if not request.numbers:  # the figures alone: they are read from the program, not from running it
        costs = _costs(lowered, layout, bundle, request) if request.cost else [None] * len(layout)
        return Verified(
            [
                VerifiedCase(
                    name=c.name,
                    outputs=_avals(layout[c.program]["outputs"]),
                    residuals=_avals(layout[c.program]["residuals"]),
                    cost=Cost(**costs[c.program]) if costs[c.program] is not None else None,
                )
                for c in cases
            ]
        )
    kept = None
    try:
        # an executable the parent kept from an earlier verifier of the very same programs and types
        compiled = programs.load_compiled(request.compiled, lowered) if request.compiled is not None else None
        if compiled is None:
            compiled = lowered.compile()
            kept = programs.serialize_compiled(compiled) if request.keep else None
        # dispatched, not waited for: the costs are walked while XLA runs the program
        runs = [(compiled(*bundle.arguments(r, False)), compiled(*bundle.arguments(r, True))) for r in bundle.rounds]
    except Exception as exc:  # noqa: BLE001 - XLA's runtime errors, out of memory above all
        return _failed(exc)
    costs = _costs(lowered, layout, bundle, request) if request.cost else [None] * len(layout)
    try:
        runs = jax.device_get(runs)
    except Exception as exc:  # noqa: BLE001 - as above: raised where the results are awaited
        return _failed(exc)
    if request.cost and request.estimates and cases:
        costs[0] |= _xla_estimates(program, bundle)
    response_cases = []
    for i, case in enumerate(cases):
        p, r = case.program, bundle.round_of[i]
        (outs, grads, res), (hidden_outs, hidden_grads, hidden_res) = runs[r]
        entry = layout[p]
        response_cases.append(
            VerifiedCase(
                name=case.name,
                outputs=_avals(entry["outputs"]),
                residuals=_avals(entry["residuals"]),
                value=[np.asarray(v) for v in outs[p]],
                grads=[np.asarray(g) for g in grads[p]],
                hidden_value=[np.asarray(v) for v in hidden_outs[p]],
                hidden_grads=[np.asarray(g) for g in hidden_grads[p]],
                saved=[
                    saved_values.SavedValue(
                        a["dtype"],
                        int(np.size(v)),
                        a["bytes"],
                        a["memory"],
                        saved_values.fingerprint(v),
                        saved_values.fingerprint(h),
                    )
                    for a, v, h in zip(entry["residuals"], res[p], hidden_res[p])
                ],
                cost=Cost(**costs[p]) if costs[p] is not None else None,
            )
        )
    return Verified(response_cases, kept)


def _avals(found: list[dict]) -> list[Aval]:
    return [Aval(**a) for a in found]


def _failed(exc: Exception) -> Failed:
    text = f"{type(exc).__name__}: {exc}"
    return Failed(CaseError(verdicts.error_kind(exc), text.splitlines()[0][:500]))


class _Bundle:
    """The cases grouped by the program of the bundle that runs them (``VerifyCase.program``: cases
    of the same shapes share one). The compiled bundle takes one case per program at a time; it
    runs in rounds, round ``r`` on each program's ``r``-th case (its first again where it has fewer)."""

    def __init__(self, cases: list[VerifyCase]):
        from ..inspection.programs import ProgramRefused

        count = max((c.program for c in cases), default=-1) + 1
        if sorted({c.program for c in cases}) != list(range(count)):
            raise ProgramRefused("the cases do not name the bundle's programs one by one")
        self.cases = cases
        self.members: list[list[VerifyCase]] = [[] for _ in range(count)]
        self.round_of = []
        for case in cases:
            self.round_of.append(len(self.members[case.program]))
            self.members[case.program].append(case)
        self.rounds = range(max((len(m) for m in self.members), default=0))

    @property
    def first(self) -> list[VerifyCase]:
        """One case per program: the one whose types the program is checked against."""
        return [m[0] for m in self.members]

    def arguments(self, r: int, hidden: bool) -> tuple[list, list]:
        chosen = [m[r] if r < len(m) else m[0] for m in self.members]
        if hidden:
            return [c.hidden_inputs for c in chosen], [c.hidden_cotangent for c in chosen]
        return [c.inputs for c in chosen], [c.cotangent for c in chosen]


def _costs(lowered, layout: list[dict], bundle: _Bundle, request: VerifyRequest) -> list[dict]:
    """Per program of the bundle, its gradient step's FLOPs and bytes, walked over the module XLA
    compiled (``judge.inspection.program_cost``): that program's results only, whatever else the
    module holds."""
    from ..inspection import program_cost

    module = lowered.compiler_ir("stablehlo")
    n_out = [len(entry["outputs"]) for entry in layout]
    n_grad = [len(request.wrt)] * len(layout)
    n_res = [len(entry["residuals"]) for entry in layout]
    first = bundle.first
    flags = [{"r", "i"} for c in first for _ in c.inputs] + [{"t"} for c in first for _ in c.cotangent]
    figures = []
    for i, entry in enumerate(layout):
        mine = lambda counts, i=i: [k == i for k, n in enumerate(counts) for _ in range(n)]  # noqa: E731
        needed = mine(n_out) + mine(n_grad) + [False] * sum(n_res)  # the residuals main returns: not the step's
        found = program_cost.case_cost(module, needed, flags)
        host = sum(r["bytes"] for r in entry["residuals"] if r["memory"] != DEVICE)
        figures.append(found | ({"held_host_bytes": host} if host else {}))
    return figures


def _xla_estimates(program, bundle: _Bundle) -> dict:
    """XLA's own figures of the first case's step (the one that stands for the program on the
    leaderboard), shown beside ours for reference: the step compiled alone, the other programs'
    work dropped as dead code. Ours rank; XLA's count a loop body once and reschedule freely."""
    import jax

    from ..inspection.cost import xla_figures

    def first_step(inputs, cotangents):
        outs, grads, _ = program(inputs, cotangents)
        return outs[0], grads[0]

    return xla_figures(jax.jit(first_step).lower(*bundle.arguments(0, hidden=False)).compile())


def _aval(aval) -> dict:
    from ..inspection.jax_internals import aval_memory

    shape = [int(d) for d in aval.shape]
    dtype = np.dtype(aval.dtype)
    return {
        "dtype": dtype.name,
        "shape": shape,
        "bytes": int(np.prod(shape, dtype=np.int64)) * dtype.itemsize,
        "memory": aval_memory(aval),
    }


def _same(avals, arrays) -> bool:
    return len(avals) == len(arrays) and all(
        tuple(a.shape) == tuple(np.shape(x)) and np.dtype(a.dtype) == np.asarray(x).dtype for a, x in zip(avals, arrays)
    )


def _layout(fwd, bwd, bundle: _Bundle, wrt: list[int]) -> list[dict]:
    """Check the two programs' signatures against the inputs the parent sent; per program of the
    bundle, the outputs' and residuals' types. Refuses (``ProgramRefused``) a pair that does not
    fit together, or a program that does not take each of its cases' inputs."""
    import jax

    from ..inspection.programs import ProgramRefused

    first = bundle.first
    inputs = [c.inputs for c in first]
    if fwd.in_tree != jax.tree_util.tree_structure(((inputs,), {})) or not _same(
        fwd.in_avals, jax.tree_util.tree_leaves(inputs)
    ):
        raise ProgramRefused("the forward program does not take the case's inputs")
    if not all(_same(fwd.in_avals, jax.tree_util.tree_leaves(bundle.arguments(r, False)[0])) for r in bundle.rounds):
        raise ProgramRefused("the forward program does not take the case's inputs")
    try:
        per_program = jax.tree_util.tree_unflatten(fwd.out_tree, list(range(len(fwd.out_avals))))
        split = [(list(out), list(res)) for out, res in per_program]
    except (TypeError, ValueError):
        raise ProgramRefused("the forward program's results are not outputs and residuals per case") from None
    if len(split) != len(first) or not all(isinstance(i, int) for out, res in split for i in out + res):
        raise ProgramRefused("the forward program's results are not outputs and residuals per case")
    layout, mismatch = [], False
    for members, (out, res) in zip(bundle.members, split):
        outputs = [_aval(fwd.out_avals[i]) for i in out]
        mismatch |= not all(_same([fwd.out_avals[i] for i in out], c.cotangent) for c in members)
        layout.append(
            {
                "outputs": outputs,
                "residuals": [_aval(fwd.out_avals[i]) for i in res],
                "res_avals": [fwd.out_avals[i] for i in res],
            }
        )
    if mismatch:
        raise _Mismatch([layout[c.program]["outputs"] for c in bundle.cases])
    residuals = [entry["res_avals"] for entry in layout]
    cotangents = [c.cotangent for c in first]
    expected_in = jax.tree_util.tree_structure(((residuals, cotangents), {}))
    flat_in = [a for r in residuals for a in r] + [a for c in cotangents for a in c]
    if (
        bwd.in_tree != expected_in
        or len(bwd.in_avals) != len(flat_in)
        or not all(
            tuple(a.shape) == tuple(np.shape(b)) and np.dtype(a.dtype) == np.dtype(b.dtype)
            for a, b in zip(bwd.in_avals, flat_in)
        )
    ):
        raise ProgramRefused("the backward program does not take exactly the forward program's residuals")
    grads = [[c.inputs[i] for i in wrt] for c in first]
    if bwd.out_tree != jax.tree_util.tree_structure(grads) or not _same(
        bwd.out_avals, jax.tree_util.tree_leaves(grads)
    ):
        raise ProgramRefused("the backward program does not return one gradient per differentiated input")
    for entry in layout:
        del entry["res_avals"]
    return layout
