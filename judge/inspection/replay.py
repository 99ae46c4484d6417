"""The one trace of a case, and the one differentiation of it.

A submission's entry point runs once per case: ``trace`` records the program it builds (a jaxpr).
Everything the judge concludes about the case is read from that program, replayed by JAX's own
interpreter without calling the submission's Python again: its structure, what reverse mode
saves, the cost, and the programs exported for the verifier. What a traced program still holds
as Python is what runs while it is differentiated (checkpoint policies, the rules of custom
derivatives), so it is differentiated exactly once (``differentiate``) and every later reading
comes from the two programs that produces: the forward one, which returns the outputs and the
residuals, and the backward one, from residuals and cotangents to gradients.

Checkpoints are marked before that differentiation (``mark``): each is wrapped in a ``jax.jit``
named with a token drawn in this process, which no submission can know. JAX keeps the name on
what the checkpoint's forward part computes and on its backward part, so a residual computed
inside checkpoint ``k`` and consumed by its backward part is one its policy chose to keep: read
from the rematerialization JAX performed, not from a mark a submission could write. The wrappers
change no value and no residual (tested), so the marked programs are the ones exported;
``unmarked`` inlines them again for the programs that are printed and costed.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from .jax_internals import (REMAT, RematTraced, _current_name_stack, _eval_jaxpr, _jaxpr_as_fun, _jit, _make_jaxpr,
                            _ShapeDtypeStruct, _tree_flatten, _tree_unflatten, _user_context, _vjp, is_remat,
                            jex_core, nested_programs)

_CALLS = ("jit", "pjit")


def trace(fn, arrays):
    """The program of one case: the only call of the submission's entry point."""
    return _make_jaxpr(fn)(*arrays)


def structs(avals) -> list:
    return [_ShapeDtypeStruct(a.shape, a.dtype) for a in avals]


@dataclass
class Marked:
    """A program whose checkpoints are wrapped in token-named calls, numbered in the order
    ``structure`` walks them (depth first, in the order of equations and their parameters)."""
    program: object  # ClosedJaxpr
    checkpoints: list = field(default_factory=list)  # the original checkpoint equations, by token
    prefix: str = ""

    def token(self, name) -> int | None:
        """The checkpoint a call's name marks, if any."""
        name = str(name)
        if not self.checkpoints or not name.startswith(self.prefix):
            return None
        suffix = name[len(self.prefix):]
        return int(suffix) if suffix.isdigit() and int(suffix) < len(self.checkpoints) else None


def mark(closed, policy_for) -> Marked:
    """``closed`` with each checkpoint wrapped in a call named by a fresh token, its policy
    replaced by ``policy_for(equation)`` (JAX's own object when the policy is one of JAX's)."""
    marked = Marked(closed, [], f"judge_{secrets.token_hex(8)}_")
    if next(_remats(closed.jaxpr), None) is None:
        return marked

    def on_remat(eqn, params, invals, rewrite):
        index = len(marked.checkpoints)
        marked.checkpoints.append(eqn)
        policy = policy_for(eqn)
        if eqn.primitive is REMAT:
            bind = REMAT.get_bind_params(dict(params, jaxpr=rewrite.open(params["jaxpr"]), policy=policy))
            call = lambda *xs: REMAT.bind(*xs, **bind)  # noqa: E731
        else:
            inner = RematTraced(rewrite.closed(params["_prim"].jaxpr), policy)
            call = lambda *xs: inner(*xs)  # noqa: E731
        call.__name__ = f"{marked.prefix}{index}"
        return _jit(call)(*invals)

    marked.program = _Rewrite(on_remat=on_remat).closed(closed)
    return marked


def unmarked(derivative, marked: Marked):
    """The same derivative with the token-named calls inlined: the programs JAX makes without
    the marks, which are printed and costed."""
    if not marked.checkpoints:
        return derivative

    def on_call(eqn, params, invals, rewrite):
        if eqn.primitive.name in _CALLS and marked.token(eqn.params.get("name", "")) is not None:
            body = params["jaxpr"]
            return _eval_jaxpr(body.jaxpr, body.consts, *invals)
        return None

    rewrite = _Rewrite(on_call=on_call)
    return Derivative(rewrite.closed(derivative.fwd), rewrite.closed(derivative.bwd), derivative.n_out)


def without_checkpoints(closed):
    """``closed`` with every checkpoint inlined: the program as it would be without ``jax.checkpoint``."""
    def on_remat(eqn, params, invals, rewrite):
        if eqn.primitive is REMAT:
            return _eval_jaxpr(rewrite.open(params["jaxpr"]), (), *invals)
        body = rewrite.closed(params["_prim"].jaxpr)
        return _eval_jaxpr(body.jaxpr, body.consts, *invals)

    return _Rewrite(on_remat=on_remat).closed(closed)


def _remats(jaxpr):
    for eqn in jaxpr.eqns:
        if is_remat(eqn):
            yield eqn
        for sub in nested_programs(eqn):
            yield from _remats(sub)


class _Rewrite:
    """Replays a program under ``make_jaxpr`` equation by equation, with the same source
    information, rewriting the programs nested in equations first; ``on_remat`` and ``on_call``
    may replace an equation by what they bind instead (``None``: keep it)."""

    def __init__(self, on_remat=None, on_call=None):
        self.on_remat, self.on_call = on_remat, on_call

    def closed(self, closed):
        return _make_jaxpr(lambda *args: self._run(closed.jaxpr, closed.consts, args))(*structs(closed.in_avals))

    def open(self, jaxpr):
        """A checkpoint's body: an open jaxpr without constants."""
        rewritten = self.closed(jex_core.ClosedJaxpr(jaxpr, []))
        if rewritten.consts:  # pragma: no cover - JAX closes a checkpoint's body over no constants
            raise ValueError("a checkpoint's body gained constants")
        return rewritten.jaxpr

    def _params(self, eqn) -> dict:
        params = dict(eqn.params)
        if eqn.primitive.name.startswith("custom_"):  # their programs are rules' inputs: kept as they are
            return params
        for key, value in params.items():
            if isinstance(value, jex_core.ClosedJaxpr):
                params[key] = self.closed(value)
            elif isinstance(value, tuple) and value and all(isinstance(v, jex_core.ClosedJaxpr) for v in value):
                rewritten = [self.closed(v) for v in value]
                params[key] = type(value)(*rewritten) if hasattr(value, "_fields") else tuple(rewritten)
        return params

    def _run(self, jaxpr, consts, args):
        env = {}

        def read(v):
            return v.val if isinstance(v, jex_core.Literal) else env[v]

        env.update(zip(jaxpr.constvars, consts))
        env.update(zip(jaxpr.invars, args))
        for eqn in jaxpr.eqns:
            invals = [read(v) for v in eqn.invars]
            name_stack = _current_name_stack() + eqn.source_info.name_stack
            with _user_context(eqn.source_info.traceback, name_stack=name_stack), eqn.ctx.manager:
                if self.on_remat is not None and is_remat(eqn):
                    outs = self.on_remat(eqn, dict(eqn.params), invals, self)
                else:
                    params = self._params(eqn)
                    outs = self.on_call(eqn, params, invals, self) if self.on_call is not None else None
                    if outs is None:
                        outs = eqn.primitive.bind(*invals, **eqn.primitive.get_bind_params(params))
                        if not eqn.primitive.multiple_results:
                            outs = [outs]
            env.update(zip(eqn.outvars, outs))
        return [read(v) for v in jaxpr.outvars]


@dataclass
class Derivative:
    """The one differentiation of a case: ``fwd`` (arrays -> outputs, residuals) and ``bwd``
    (residuals, cotangents -> gradients with respect to ``wrt``)."""
    fwd: object
    bwd: object
    n_out: int

    @property
    def residual_avals(self) -> list:
        return list(self.fwd.out_avals[self.n_out:])

    @property
    def output_avals(self) -> list:
        return list(self.fwd.out_avals[:self.n_out])


def differentiate(program, arrays, wrt) -> Derivative:
    """Reverse mode over ``program`` with respect to the arrays at ``wrt``: the only time the
    policies and custom rules it holds run."""
    fn = _jaxpr_as_fun(program)
    trees: dict = {}

    def forward(*flat):
        def of_diff(*diff):
            full = list(flat)
            for i, value in zip(wrt, diff):
                full[i] = value
            return fn(*full)

        out, vjp_fn = _vjp(of_diff, *(flat[i] for i in wrt))
        outs, trees["out"] = _tree_flatten(out)
        res, trees["res"] = _tree_flatten(vjp_fn)
        return outs, res

    fwd = _make_jaxpr(forward)(*arrays)
    n_out = trees["out"].num_leaves

    def backward(res, cotangents):
        vjp_fn = _tree_unflatten(trees["res"], list(res))
        return list(vjp_fn(_tree_unflatten(trees["out"], list(cotangents))))

    bwd = _make_jaxpr(backward)(structs(fwd.out_avals[n_out:]), structs(fwd.out_avals[:n_out]))
    return Derivative(fwd, bwd, n_out)
