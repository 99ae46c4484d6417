"""The explorer's harness: the judge's own code, run in the child next to the learner's, that
applies a plan by name (``explore_plans.Plan.key``) to the learner's function. Only JAX's own
policy objects are used, so the child's reading recognises them as JAX's.

A module of Equinox or Flax NNX is called as a function of its parameters, then its inputs: its
floating-point array leaves (``judge.in_child.shapes.is_parameter``, which described them to the
parent, in the same order) are the first arguments, put back into the module before its call. The
harness runs with a submission's builtins and module views, so it uses only names they allow."""

from __future__ import annotations

from . import loops as explore_loops

HARNESS = (
    """
import math

import equinox
import jax
import numpy

try:
    from flax import nnx as _nnx
except ImportError:  # Flax is not among the modules submissions may import here
    _nnx = None

_cp = jax.checkpoint_policies
_scan = jax.lax.scan  # bound before the learner's function runs: the harness's own scan


def _policy(kind, names):
    plain = {"everything_saveable": _cp.everything_saveable, "nothing_saveable": _cp.nothing_saveable,
             "dots_saveable": _cp.dots_saveable, "dots_with_no_batch_dims_saveable": _cp.dots_with_no_batch_dims_saveable}
    if kind in plain:
        return plain[kind]
    if kind == "save_only_these_names":
        return _cp.save_only_these_names(*names)
    if kind == "save_any_names_but_these":
        return _cp.save_any_names_but_these(*names)
    if kind == "offload_dot_with_no_batch_dims":
        return _cp.offload_dot_with_no_batch_dims("device", "pinned_host")
    if kind == "save_and_offload_only_these_names":
        return _cp.save_and_offload_only_these_names(names_which_can_be_saved=(), names_which_can_be_offloaded=names,
                                                     offload_src="device", offload_dst="pinned_host")
    raise ValueError("unknown plan " + kind)


def _blocks(xs, length):
    if length is not None:
        return length
    return jax.tree_util.tree_leaves(xs)[0].shape[0]


def _split(xs, start, stop, k):
    # blocks start..stop of the stack, as (stop - start) // k segments of k
    return jax.tree_util.tree_map(lambda a: a[start:stop].reshape((stop - start) // k, k, *a.shape[1:]), xs)


def _segments(f, init, xs, length, k, inner, kw, checkpoint=jax.checkpoint):
    # the stack in segments of k blocks (the last one shorter when k does not divide it), each
    # segment one checkpoint (checkpoint: jax.checkpoint, or with a policy); inner: every block
    # inside a segment a checkpoint of its own too
    n = _blocks(xs, length)
    body = jax.checkpoint(f) if inner else f
    k = max(1, min(k, n))
    whole = (n // k) * k  # the blocks in whole segments; the rest, if any, one shorter segment

    def segment(size):
        return checkpoint(lambda carry, part: _scan(body, carry, part, length=size, **kw))

    order = [(0, whole, k), (whole, n, n - whole)] if not kw.get("reverse") else [(whole, n, n - whole), (0, whole, k)]
    carry, pieces = init, {}
    for start, stop, size in order:
        if stop == start:
            continue
        part = None if xs is None else _split(xs, start, stop, size)
        carry, y = _scan(segment(size), carry, part, length=(stop - start) // size, reverse=kw.get("reverse", False))
        pieces[start] = jax.tree_util.tree_map(lambda a: a.reshape(-1, *a.shape[2:]), y)
    parts = [pieces[s] for s in sorted(pieces)]
    ys = parts[0] if len(parts) == 1 else jax.tree_util.tree_map(lambda *a: jax.numpy.concatenate(a), *parts)
    return carry, ys


def _placed(placement, checkpoint=jax.checkpoint):
    # jax.lax.scan as the learner's outermost scans see it during this plan's trace; checkpoint:
    # jax.checkpoint, or with the policy of a placement with a policy
    depth = [0]

    def scan(f, init, xs=None, length=None, **kw):
        if depth[0]:  # a scan inside a block: the block's own business
            return _scan(f, init, xs, length, **kw)
        depth[0] += 1
        try:
            if placement == "every":
                return _scan(checkpoint(f), init, xs, length, **kw)
            n = _blocks(xs, length)
            if placement in ("nested", "sqrt"):
                return _segments(f, init, xs, length, max(1, round(math.sqrt(n))), placement == "nested", kw, checkpoint)
            return _segments(f, init, xs, length, int(placement), False, kw)
        finally:
            depth[0] -= 1

    return scan


def _unjitted(learner):
    # a jitted function keeps the trace of its first call, the plan as written: under a placement
    # the function it wraps is called instead (inside the gradient step the jit changes nothing)
    try:
        return learner.__dict__.get("__wrapped__") or learner
    except AttributeError:
        return learner


def _namespace(learner):
    try:
        return learner.__globals__
    except AttributeError:
        pass
    try:  # a module: where its class's call was written
        return type(learner).__call__.__globals__
    except AttributeError:
        return {}


def _is_parameter(leaf):
    # judge.in_child.shapes.is_parameter, in the names a submission's builtins allow
    return isinstance(leaf, (jax.Array, numpy.ndarray, jax.ShapeDtypeStruct)) and jax.numpy.issubdtype(
        leaf.dtype, jax.numpy.floating
    )


def _module_call(learner):
    # a module's call as a function of its parameters and then its inputs; anything else as it is
    if isinstance(learner, equinox.Module):
        params, rest = equinox.partition(learner, _is_parameter)
        leaves, treedef = jax.tree_util.tree_flatten(params)
        count = len(leaves)

        def call(*arrays):
            module = equinox.combine(jax.tree_util.tree_unflatten(treedef, arrays[:count]), rest)
            return module(*arrays[count:])

        return call
    if _nnx is not None and isinstance(learner, _nnx.Module):
        graphdef, state = _nnx.split(learner)
        leaves, treedef = jax.tree_util.tree_flatten(state)
        where = [i for i, leaf in enumerate(leaves) if _is_parameter(leaf)]

        def call(*arrays):
            filled = list(leaves)
            for i, array in zip(where, arrays):
                filled[i] = array
            return _nnx.merge(graphdef, jax.tree_util.tree_unflatten(treedef, filled))(*arrays[len(where):])

        return call
    return learner


def _scan_owners(namespace):
    # where the learner's module finds scan: itself (scan imported alone), or the views of jax and
    # jax.lax it imported (a submission's modules are views of its own, see judge.in_child.guard)
    owners = [namespace]
    for value in list(namespace.values()):
        if isinstance(value, type(math)):
            owners.append(value.__dict__)
            inner = value.__dict__.get("lax")
            if isinstance(inner, type(math)):
                owners.append(inner.__dict__)
    return [(owner, key) for owner in owners for key, value in list(owner.items()) if value is _scan]


def _chain_with_policy(placement, checkpoint):
    # the learner's loop with a checkpoint carrying a policy around each turn ("every") or each
    # sqrt(N) turns ("sqrt"): the turns inside run as the loop runs them (explore_loops' _chain)
    def chain(turn, items, arity, carried):
        items = list(items)
        k = 1 if placement == "every" else max(1, round(math.sqrt(len(items))))
        for start in range(0, len(items), k):
            part = items[start:start + k]
            carried = checkpoint(lambda v, part=part: _chain(None)(turn, part, arity, v))(carried)
        return carried

    return chain


def _run_placed(learner, namespace, placement, checkpoint, arrays):
    learner = _unjitted(learner)
    owners = _scan_owners(namespace)
    for owner, key in owners:
        owner[key] = _placed(placement, checkpoint)
    try:
        return learner(*arrays)
    finally:
        for owner, key in owners:
            owner[key] = _scan


def _names(listed):
    return tuple(n for n in listed.split(",") if n)


def run(learner, plan, *arrays):
    kind, _, names = plan.partition(":")
    namespace = _namespace(_unjitted(learner))
    learner = _module_call(learner)
    # a loop the parent rewrote calls arena_chain: the turns as written, or placed (explore_loops)
    namespace["arena_chain"] = _chain(names if kind == "blocks" else None)
    if kind == "as written":
        return learner(*arrays)
    if kind == "blocks":
        return _run_placed(learner, namespace, names, jax.checkpoint, arrays)
    if kind == "blocks+policy":  # "blocks+policy:<placement>:<policy>:<its names>"
        placement, policy, listed = names.split(":", 2)
        saved = _policy(policy, _names(listed))

        def checkpoint(f):
            return jax.checkpoint(f, policy=saved)

        namespace["arena_chain"] = _chain_with_policy(placement, checkpoint)
        return _run_placed(learner, namespace, placement, checkpoint, arrays)
    return jax.checkpoint(learner, policy=_policy(kind, _names(names)))(*arrays)
"""
    + explore_loops.HARNESS
)
