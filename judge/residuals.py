"""Everything the judge reads from JAX's internals lives here, pinned to the JAX in the lock file.

Three readings, all from traced programs (jaxprs), never from printed text:

* ``saved_residuals``: what reverse mode saves for the backward pass, with provenance (an
  argument, a ``checkpoint_name`` value, or the output of a primitive at a line of the
  submission). It follows ``jax.saved_residuals``' method, but looks through ``jit`` calls,
  ``scan`` bodies and the ``reduce_precision`` that checkpoints insert, so that ``@jax.jit`` on a
  submission does not change what the learner is told.
* ``checkpoint_structure``: every ``jax.checkpoint`` in the forward program, with its policy
  reduced to the canonical form of ``policy_names``, what it encloses, and its nesting.
* ``fwd_bwd_programs``: the forward program (with residual outputs) and the backward program,
  as the tutorial's ``print_fwd_bwd`` shows them.
* ``export_programs`` and ``load_program``: the same forward and backward programs exported with
  ``jax.export`` in the child, and read back, checked and refused if they call out of XLA
  (custom calls, callbacks, effects) in the verifier, where no submitted code runs.

Patching JAX from a submission: this module binds every JAX function and object it relies on
when it is imported, which happens in the zygote before any submission exists (``_PRISTINE``,
``_KNOWN_POLICIES``, the primitives below). A submission that rebinds ``jax.checkpoint``,
``jax.make_jaxpr`` or ``jax.checkpoint_policies.dots_saveable`` changes its own program, not what
is read here. What this cannot stop is a submission that mutates JAX's internal objects in
place; the static gate refuses the attribute access that needs, and the numbers, gradients and
residual sizes of the verdict do not come from this process at all (see ``judge.verify``).

The contract tests in ``tests/judge/test_residuals_contract.py`` pin these to the listings of
the JAX tutorial; a JAX upgrade that changes any of it fails there first.
"""
from __future__ import annotations

import inspect
from collections import Counter
from functools import partial

import jax
import jax.extend.core as jex_core
import numpy as np
from jax._src import ad_checkpoint as _ac
from jax._src import source_info_util as _source_info
from jax._src.lax import lax as _lax

from . import policy_names
from .specs import short_type

# Bound at import (in the zygote, before any submission ran): see the module's docstring.
_make_jaxpr = jax.make_jaxpr
_vjp = jax.vjp
_jit = jax.jit
_tree_flatten = jax.tree_util.tree_flatten
_tree_unflatten = jax.tree_util.tree_unflatten
_tree_leaves = jax.tree_util.tree_leaves
_ShapeDtypeStruct = jax.ShapeDtypeStruct
_KNOWN_POLICIES = {name: getattr(jax.checkpoint_policies, name)
                   for name in policy_names.PLAIN + tuple(policy_names.ALIASES)}
REMAT = _ac.remat_p
NAME = _ac.name_p
REDUCE_PRECISION = _lax.reduce_precision_p
CALLS = {"jit", "pjit", "closed_call", "core_call", "remat2", "checkpoint"}
LOOPS = {"scan", "while", "fori_loop"}
CUSTOM_CALLS = {"custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr"}


# ---------------------------------------------------------------------------- policies

def describe_policy(policy) -> tuple:
    """A live policy object -> the canonical form used by ``policy_names``.

    Identity is checked by exact type and JAX's own equality, never by calling the submitted
    object's ``__eq__``, so a policy look-alike cannot claim to be a standard one.
    """
    if policy is None:
        return policy_names.plain("nothing_saveable")
    for name, known in _KNOWN_POLICIES.items():
        if policy is known or (type(policy) is type(known) and type(known) is _ac.DotsSaveable
                               and known.__eq__(policy) is True):
            return policy_names.plain(name)
    if type(policy) is _ac.SaveOnlyTheseNames:
        return policy_names.with_names("save_only_these_names", policy.saveable_names)
    if type(policy) is _ac.SaveAnyNamesButThese:
        return policy_names.with_names("save_any_names_but_these", policy.names)
    qualname = getattr(policy, "__qualname__", "") if inspect.isfunction(policy) else ""
    module = getattr(policy, "__module__", "")
    if module == _ac.__name__ and qualname.startswith("save_from_both_policies."):
        cells = inspect.getclosurevars(policy).nonlocals
        return policy_names.both(describe_policy(cells["policy_1"]), describe_policy(cells["policy_2"]))
    if module == _ac.__name__ and qualname.startswith("save_anything_except_these_names."):
        # JAX 0.10.2 drops the names here (the policy saves everything), so none can be read.
        return policy_names.with_names("save_anything_except_these_names", ())
    return ("custom", qualname or type(policy).__name__)


# ---------------------------------------------------------------------------- helpers

def _line_of(source_info, filename: str) -> int | None:
    """The innermost line of the submission's own file in an equation's traceback."""
    traceback = getattr(source_info, "traceback", None)
    if traceback is None:
        return None
    codes, lasti = traceback.raw_frames()
    for code, offset in zip(codes, lasti):
        if code.co_filename == filename:
            return _source_info.raw_frame_to_frame(code, offset).start_line
    return None


def _aval_fields(aval) -> dict:
    dtype = np.dtype(aval.dtype).name
    shape = [int(d) for d in aval.shape]
    return {"dtype": dtype, "shape": shape, "type": short_type(dtype, shape),
            "bytes": int(np.prod(shape, dtype=np.int64)) * np.dtype(aval.dtype).itemsize}


def _closed(jaxpr_like):
    return getattr(jaxpr_like, "jaxpr", jaxpr_like)


def _inner_jaxpr(eqn):
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        if key in eqn.params:
            return _closed(eqn.params[key])
    return None


def _primitive_label(eqn) -> str:
    """A primitive's name; a custom_jvp/custom_vjp call is named by the function it wraps."""
    name = eqn.primitive.name
    if name not in CUSTOM_CALLS:
        return name
    if eqn.params.get("name"):
        return str(eqn.params["name"])
    inner = _inner_jaxpr(eqn)
    info = getattr(inner, "debug_info", None)
    func = getattr(info, "func_src_info", None) or ""
    return func.split(" at ")[0] or name


# ---------------------------------------------------------------------------- residuals

class _Resolver:
    """Finds where a residual comes from, following it into calls and scan bodies."""

    def __init__(self, filename: str, arg_names):
        self.filename, self.arg_names = filename, list(arg_names)

    def top(self, jaxpr, var) -> dict:
        return self.resolve(jaxpr, var, lambda i: {"kind": "argument", "what": self.arg_names[i], "line": None})

    def resolve(self, jaxpr, var, from_invar) -> dict:
        if isinstance(var, jex_core.Literal):
            return {"kind": "literal", "what": repr(var.val), "line": None}
        if var in jaxpr.invars:
            return from_invar(jaxpr.invars.index(var))
        if var in jaxpr.constvars:
            return {"kind": "constant", "what": "constant", "line": None}
        for eqn in jaxpr.eqns:
            if var in eqn.outvars:
                return self._from_eqn(jaxpr, eqn, eqn.outvars.index(var), from_invar)
        return {"kind": "constant", "what": "unknown", "line": None}

    def _from_eqn(self, jaxpr, eqn, index, from_invar) -> dict:
        outer = partial(self._outer_operand, jaxpr, eqn, from_invar)
        name = eqn.primitive.name
        if eqn.primitive is REDUCE_PRECISION:
            # A checkpoint puts this on every floating-point value its policy saves; the producer
            # is what the learner wrote, and the mark tells the rules a policy chose to keep it.
            return dict(self.resolve(jaxpr, eqn.invars[0], from_invar), policy_saved=True)
        if eqn.primitive is NAME:
            return {"kind": "named", "what": str(eqn.params["name"]), "line": _line_of(eqn.source_info, self.filename)}
        if name in CALLS:
            inner = _inner_jaxpr(eqn)
            if inner is not None:
                return self.resolve(inner, inner.outvars[index], outer)
        if name == "scan":
            inner = _closed(eqn.params["jaxpr"])
            num_consts, num_carry = eqn.params["num_consts"], eqn.params["num_carry"]
            if index >= num_carry:  # a stacked per-iteration output: look at what the body made

                def body_invar(i):
                    if num_consts <= i < num_consts + num_carry:
                        return {"kind": "primitive", "what": "scan carry", "line": _line_of(eqn.source_info, self.filename)}
                    return outer(i)

                found = self.resolve(inner, inner.outvars[index], body_invar)
                return dict(found, stacked=int(eqn.params["length"]))
        return {"kind": "primitive", "what": _primitive_label(eqn), "line": _line_of(eqn.source_info, self.filename)}

    def _outer_operand(self, jaxpr, eqn, from_invar, i) -> dict:
        return self.resolve(jaxpr, eqn.invars[i], from_invar)


def _split(args, wrt):
    """Close over everything not differentiated, keeping array arguments as traced inputs."""
    wrt = tuple(wrt)
    others = [i for i in range(len(args)) if i not in wrt]

    def with_all(fn):
        def traced(*flat):
            diff, rest = flat[:len(wrt)], flat[len(wrt):]
            full = list(args)
            for i, v in zip(wrt, diff):
                full[i] = v
            for i, v in zip(others, rest):
                full[i] = v
            return fn(*full)
        return traced

    return with_all, [args[i] for i in wrt], [args[i] for i in others], others


def saved_residuals(fn, args, wrt, arg_names, filename: str) -> list[dict]:
    """What ``jax.vjp(fn)`` saves, with respect to the arguments at positions ``wrt``.

    ``args`` holds arrays; static values must already be bound into ``fn``.
    """
    with_all, diff, rest, others = _split(args, wrt)
    traced = with_all(fn)

    def forward(*flat):
        diff_part, rest_part = flat[:len(diff)], flat[len(diff):]
        return _vjp(lambda *d: traced(*d, *rest_part), *diff_part)

    closed, shape = _make_jaxpr(forward, return_shape=True)(*diff, *rest)
    jaxpr = closed.jaxpr
    num_res = len(_tree_leaves(shape[1]))
    names = [arg_names[i] for i in wrt] + [arg_names[i] for i in others]
    resolver = _Resolver(filename, names)
    out = []
    for var in jaxpr.outvars[len(jaxpr.outvars) - num_res:]:
        entry = resolver.top(jaxpr, var)
        entry.update(_aval_fields(var.aval))
        out.append(entry)
    return out


# ---------------------------------------------------------------------------- structure

# Operations after which a value is still "the output" for memory purposes: their backward
# pass needs no residual, so a checkpoint feeding only them is recomputed at once on the way back.
OUTPUT_PRESERVING = {"reduce_sum", "reshape", "squeeze", "expand_dims", "broadcast_in_dim",
                     "convert_element_type", "transpose", "neg", "copy", "copy_p", "add", "sub",
                     "add_any", "slice", "reduce_precision"}


def _final_vars(jaxpr, final_outvars) -> set:
    """Variables that reach the output through output-preserving operations only."""
    final = {v for v in final_outvars if isinstance(v, jex_core.Var)}
    for eqn in reversed(jaxpr.eqns):
        if eqn.primitive.name in OUTPUT_PRESERVING and any(v in final for v in eqn.outvars):
            final.update(v for v in eqn.invars if isinstance(v, jex_core.Var))
    return final


class _StructureWalker:
    def __init__(self, filename: str):
        self.filename = filename
        self.total, self.checkpoints, self.custom_vjps = Counter(), [], []

    def walk(self, jaxpr, counter: Counter, parent, depth: int, final_outvars, in_loop: bool = False) -> None:
        final = _final_vars(jaxpr, final_outvars)
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            if eqn.primitive is REMAT:
                self._checkpoint(eqn, counter, parent, depth, final, in_loop)
                continue
            counter[_primitive_label(eqn) if name in CUSTOM_CALLS else name] += 1
            if name.startswith("custom_vjp"):
                self.custom_vjps.append({"line": _line_of(eqn.source_info, self.filename)})
            inner = _inner_jaxpr(eqn) if name in CALLS else None
            if inner is not None:  # a jit body's outputs are the call's outputs
                passed = [iv for iv, ov in zip(inner.outvars, eqn.outvars) if ov in final]
                self.walk(inner, counter, parent, depth, passed, in_loop)
                continue
            loop = in_loop or name in LOOPS
            for sub in jex_core.jaxprs_in_params(eqn.params):
                self.walk(sub, counter, parent, depth, (), loop)

    def _checkpoint(self, eqn, counter: Counter, parent, depth: int, final: set, in_loop: bool) -> None:
        prevent_cse = eqn.params.get("prevent_cse")
        record = {
            "policy": describe_policy(eqn.params.get("policy")),
            "prevent_cse": bool(prevent_cse is True or (isinstance(prevent_cse, tuple) and all(prevent_cse))),
            "line": _line_of(eqn.source_info, self.filename),
            "parent": parent,
            "depth": depth,
            "feeds_output": any(v in final for v in eqn.outvars),
            "in_loop": in_loop,
        }
        self.checkpoints.append(record)
        inner = Counter()
        body = _closed(eqn.params["jaxpr"])
        passed = [iv for iv, ov in zip(body.outvars, eqn.outvars) if ov in final]
        self.walk(body, inner, len(self.checkpoints) - 1, depth + 1, passed, in_loop)
        record["encloses"] = dict(inner)
        counter.update(inner)
        counter[eqn.primitive.name] += 1


def trace_only(fn, args) -> None:
    """Trace ``fn`` once (so that it can fail, or report its outputs) without reading anything."""
    _make_jaxpr(fn)(*args)


def checkpoint_structure(fn, args, filename: str) -> dict:
    closed = _make_jaxpr(fn)(*args)
    walker = _StructureWalker(filename)
    walker.walk(closed.jaxpr, walker.total, None, 0, closed.jaxpr.outvars)
    for record in walker.checkpoints:
        record["policy_text"] = policy_names.render(record["policy"])
        record["policy"] = _jsonable_policy(record["policy"])
    return {"checkpoints": walker.checkpoints, "custom_vjp": walker.custom_vjps, "primitives": dict(walker.total)}


def _jsonable_policy(policy):
    """Canonical policies hold frozensets; the wire needs lists (``policy_from_wire`` undoes it)."""
    if policy[0] == "save_from_both_policies":
        return [policy[0], sorted((_jsonable_policy(p) for p in policy[1]), key=repr)]
    if policy[0] in policy_names.WITH_NAMES:
        return [policy[0], list(policy[1])]
    return list(policy)


# ---------------------------------------------------------------------------- programs

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


# ---------------------------------------------------------------------------- exported programs

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
    from jax._src.export import _export as _ex

    allowed = _ex._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE
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


# ---------------------------------------------------------------------------- cost

# Data movement and bookkeeping: no arithmetic worth counting.
FREE = {"reshape", "squeeze", "expand_dims", "broadcast_in_dim", "transpose", "convert_element_type",
        "copy", "copy_p", "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "pad",
        "gather", "select_n", "iota", "reduce_precision", "name", "optimization_barrier", "pjit", "jit",
        "squeeze", "rev", "stop_gradient"}


def _count_flops(jaxpr) -> float:
    """Arithmetic of a program, walking into calls, checkpoints and loops (each iteration counted)."""
    total = 0.0
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name == "dot_general":
            (lhs_contract, _), _ = eqn.params["dimension_numbers"]
            lhs = eqn.invars[0].aval
            contracted = int(np.prod([lhs.shape[i] for i in lhs_contract], dtype=np.int64))
            total += 2.0 * int(np.prod(eqn.outvars[0].aval.shape, dtype=np.int64)) * contracted
        elif name == "scan":
            total += eqn.params["length"] * _count_flops(_closed(eqn.params["jaxpr"]))
        elif jex_core.jaxprs_in_params(eqn.params) and name not in ("cond", "while"):
            total += sum(_count_flops(sub) for sub in jex_core.jaxprs_in_params(eqn.params))
        elif name == "cond":  # the most expensive branch
            total += max(_count_flops(b.jaxpr) for b in eqn.params["branches"])
        elif name not in FREE:
            total += sum(int(np.prod(v.aval.shape, dtype=np.int64)) for v in eqn.outvars
                         if hasattr(v.aval, "shape"))
    return total


def _var_bytes(v) -> int:
    aval = getattr(v, "aval", None)
    if not hasattr(aval, "shape") or not hasattr(aval, "dtype"):
        return 0
    return int(np.prod(aval.shape, dtype=np.int64)) * np.dtype(aval.dtype).itemsize


def _peak_live_bytes(jaxpr) -> int:
    """Most bytes alive at once while the program runs in order, inputs included.

    A value lives from the equation that makes it to its last use. Calls, checkpoints and loop
    bodies add their own peak above their inputs while they run, so the memory a checkpoint
    needs when its recomputation happens on the backward pass is counted where it happens.
    """
    last_use = {}
    for index, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if isinstance(v, jex_core.Var):
                last_use[v] = index
    for v in jaxpr.outvars:
        if isinstance(v, jex_core.Var):
            last_use[v] = len(jaxpr.eqns)
    live = {v: _var_bytes(v) for v in list(jaxpr.invars) + list(jaxpr.constvars)}
    current = sum(live.values())
    peak = current
    for index, eqn in enumerate(jaxpr.eqns):
        inner = 0
        for sub in jex_core.jaxprs_in_params(eqn.params):
            inner = max(inner, _peak_live_bytes(sub) - sum(_var_bytes(v) for v in sub.invars))
        made = sum(_var_bytes(v) for v in eqn.outvars)
        peak = max(peak, current + max(inner, 0) + made)
        for v in eqn.outvars:
            if not isinstance(v, jex_core.DropVar) and v in last_use:
                live[v] = _var_bytes(v)
                current += live[v]
        for v in {v for v in eqn.invars if isinstance(v, jex_core.Var)}:
            if last_use.get(v) == index and v in live:
                current -= live.pop(v)
    return peak


def compiled_cost(fn, args, wrt) -> dict:
    """The cost of one whole gradient step (forward, residuals, backward).

    ``flops`` and ``peak_bytes`` are read from the traced program, where every recomputation a
    checkpoint causes, every loop iteration and every value's lifetime are visible. XLA's own
    estimates (the ``xla_`` fields) count a loop body once, may merge recomputations and
    reschedule freely on CPU, so they cannot rank checkpointing strategies; they are reported
    beside ours for reference. The cotangent is an input of the step: nothing is run to make one.
    """
    forward, backward = _vjp_parts(fn, wrt)

    def step(arrays, cotangents):
        outs, res = forward(*arrays)
        return outs, backward(res, cotangents)

    out_shape, _ = jax.eval_shape(forward, *args)
    cotangents = _structs(out_shape)
    program = _make_jaxpr(step)(list(args), cotangents).jaxpr
    flops = _count_flops(program)
    compiled = _jit(step).lower(list(args), cotangents).compile()
    analysis = compiled.cost_analysis()
    if isinstance(analysis, (list, tuple)):
        analysis = analysis[0] if analysis else {}
    memory = compiled.memory_analysis()
    return {
        "flops": float(flops),
        "peak_bytes": int(_peak_live_bytes(program)),
        "xla_flops": float(analysis.get("flops", 0.0)),
        "xla_temp_bytes": int(getattr(memory, "temp_size_in_bytes", 0)),
        "xla_peak_bytes": int(getattr(memory, "peak_memory_in_bytes", 0)),
    }
