"""The audit of ``judge.in_child.allowed`` against the pinned JAX, numpy and Equinox: what a submission can reach.

Two checks close the class of string-keyed reflection rather than its instances:

* nothing a submission can reach by attribute names the gate allows, from the modules it can
  import and from the objects it can make with them (Equinox modules of its own classes
  included), is a real module, a metaclass, or one of the functions that get attributes, import
  or evaluate code by name;
* no callable in the lists reads or sets an attribute by a computed name, or evaluates code,
  unless it was reviewed (below, with the reason it is harmless). A JAX, numpy or Equinox upgrade
  that adds one fails here until someone reads it.
"""

import builtins
import collections
import functools
import importlib
import inspect
import operator
import re
import sys
import types
import typing
import warnings

import equinox as eqx
import jax
import numpy as np
import pytest

from judge.in_child import allowed, gate, guard

# Functions that reach anything by a name or text given to them: none may be reachable.
REFLECTIVE = [
    *(
        getattr(builtins, name)
        for name in (
            "getattr",
            "setattr",
            "delattr",
            "hasattr",
            "vars",
            "dir",
            "eval",
            "exec",
            "compile",
            "__import__",
            "open",
            "globals",
            "locals",
        )
    ),
    functools.update_wrapper,
    functools.wraps,
    functools.singledispatch,
    typing.get_type_hints,
    typing.ForwardRef,
    operator.attrgetter,
    operator.methodcaller,
    importlib.import_module,
    jax.tree_util.register_dataclass,
    np.bmat,
    np.info,
    np.load,
    np.save,
    np.fromfile,
    sys._getframe,
    type,
    eqx.module_update_wrapper,
    eqx.tree_serialise_leaves,
    eqx.tree_deserialise_leaves,
    eqx.filter_pure_callback,
    eqx.nn.WeightNorm,
    eqx.nn.SpectralNorm,
]
# Objects a submission can make with what it may import, to explore from as well.
MADE = """
import functools
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.zeros(2)
a = np.zeros(2)
jitted = jax.jit(lambda v: v * 2)
lowered = jitted.lower(x)
jaxpr = jax.make_jaxpr(lambda v: jnp.sin(v) @ v)(x)
primitive = jaxpr.eqns[0].primitive
out, vjp_function = jax.vjp(jnp.sin, x)
rng = np.random.default_rng(0)
key = jax.random.key(0)
treedef = jax.tree_util.tree_structure([x, (x,)])
partial = jax.tree_util.Partial(jnp.sin)
shape = jax.ShapeDtypeStruct((2,), jnp.float32)
custom = jax.custom_jvp(jnp.sin)
checkpointed = jax.checkpoint(jnp.sin, policy=jax.checkpoint_policies.dots_saveable)
dtype = np.dtype("float32")
info = jnp.finfo(jnp.float32)
wrapped = functools.partial(jnp.sin)

import equinox as eqx


class Block(eqx.Module):
    linear: eqx.nn.Linear
    scale: float = eqx.field(static=True, default=1.0)

    def __call__(self, h):
        return self.scale * self.linear(h)


block = Block(eqx.nn.Linear(2, 2, key=key))
mlp = eqx.nn.MLP(2, 2, 4, 1, key=key)
params, static = eqx.partition(block, eqx.is_array)
rebuilt = eqx.combine(params, static)
filtered = eqx.filter_jit(block)
stacked = eqx.filter_vmap(lambda k: eqx.nn.Linear(2, 2, key=k))(jax.random.split(key, 3))
remat = eqx.filter_checkpoint(block, policy=jax.checkpoint_policies.dots_saveable)
moved = eqx.tree_at(lambda b: b.linear.bias, block, jnp.ones(2))
layers = eqx.nn.Sequential([eqx.nn.Linear(2, 2, key=key), eqx.nn.Lambda(jnp.tanh)])

from flax import nnx


class Mixer(nnx.Module):
    def __call__(self, h):
        return self.norm(self.linear(h))


nnx_rngs = nnx.Rngs(0)
mixer = Mixer()
mixer.linear = nnx.Linear(2, 2, rngs=nnx_rngs)
mixer.norm = nnx.LayerNorm(2, rngs=nnx_rngs)
nnx_stack = nnx.Sequential(nnx.Linear(2, 4, rngs=nnx_rngs), nnx.gelu, nnx.Dropout(0.1, rngs=nnx_rngs))
nnx_shapes = nnx.eval_shape(lambda: nnx.Sequential(nnx.Linear(2, 4, rngs=nnx.Rngs(0))))
graphdef, nnx_state = nnx.split(mixer)
nnx_back = nnx.merge(graphdef, nnx_state)
nnx_remat = nnx.remat(lambda m, h: m(h))
nnx_list = nnx.List([nnx.Linear(2, 2, rngs=nnx_rngs)])
attention = nnx.MultiHeadAttention(2, 2, rngs=nnx_rngs, decode=False)
param = nnx.Param(jnp.zeros(2))
"""
DEPTH = 4
SCALARS = (int, float, complex, str, bytes, bool, type(None))


def _submission(source: str) -> dict:
    namespace = {"__name__": "submission", "__builtins__": guard.restricted_builtins()}
    exec(compile(source, "submission.py", "exec"), namespace)  # noqa: S102 - what the child does
    return {k: v for k, v in namespace.items() if not k.startswith("__")}


def _views() -> dict:
    return {m: _submission(f"import {m} as view\n")["view"] for m in allowed.MODULES}


def _is_view(obj) -> bool:
    return isinstance(obj, types.ModuleType) and "__getattr__" in vars(obj)


def _explore(roots: dict) -> list:
    """Breadth-first over every attribute name the gate lets a submission write (and over items
    of lists, tuples and dicts), to DEPTH steps; what it finds that a submission must not have."""
    found, seen, queue = [], {}, collections.deque((name, obj, 0) for name, obj in roots.items())
    while queue:
        path, obj, depth = queue.popleft()
        if id(obj) in seen:
            continue
        seen[id(obj)] = obj  # keeps it alive, so that an id is never reused within the walk
        if isinstance(obj, types.ModuleType) and not _is_view(obj):
            found.append(f"{path}: the module {obj.__name__}")
            continue
        if isinstance(obj, type) and issubclass(obj, type):
            found.append(f"{path}: the metaclass {obj.__name__}")
        if any(obj is f for f in REFLECTIVE):
            found.append(f"{path}: {obj!r}")
        if depth == DEPTH:
            continue
        if isinstance(obj, (list, tuple)):
            queue.extend((f"{path}[{i}]", item, depth + 1) for i, item in enumerate(obj[:50]))
        elif isinstance(obj, dict):
            queue.extend((f"{path}[{k!r}]", item, depth + 1) for k, item in list(obj.items())[:200])
        for name in dir(obj):
            if gate.attribute_refusal(name) is None:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # deprecated aliases
                        value = getattr(obj, name)
                except Exception:  # noqa: BLE001 - a property that needs an argument, a removed alias...
                    continue
                if not isinstance(value, SCALARS):
                    queue.append((f"{path}.{name}", value, depth + 1))
    return found


def test_every_listed_name_exists_in_the_pinned_versions():
    for module, names in allowed.MODULES.items():
        real = importlib.import_module(module)
        missing = {n for n in names if not hasattr(real, n) and not allowed.module_allowed(f"{module}.{n}")}
        assert not missing, (module, missing)


def test_the_explorer_finds_what_the_real_modules_hand_out():
    found = "\n".join(_explore({m: importlib.import_module(m) for m in ("typing", "functools")}))
    assert "the module typing" in found and "the module functools" in found
    found = "\n".join(_explore({"typing": importlib.import_module("typing").__dict__}))
    assert "the module sys" in found and "get_type_hints" in found and "ABCMeta" in found
    found = "\n".join(_explore({"equinox": importlib.import_module("equinox")}))
    assert "the module equinox" in found
    found = "\n".join(_explore({"equinox": vars(importlib.import_module("equinox"))}))
    assert "the module importlib" in found and "module_update_wrapper" in found and "the module equinox.nn" in found


def test_nothing_reachable_from_the_views_or_what_they_make_is_a_module_a_metaclass_or_reflection():
    roots = {**_views(), **_submission(MADE)}
    assert _explore(roots) == []


# Callables of the lists whose source reads or sets an attribute by a computed name, or evaluates
# code, and why each is harmless.
REVIEWED = {
    "collections.namedtuple": "evaluates a lambda built from field names it has checked are identifiers "
    "not starting with an underscore",
    "functools.lru_cache": "update_wrapper with the fixed default names, onto the new cache wrapper",
    "functools.total_ordering": "reads and sets the fixed names of the comparison methods",
    "functools.wraps": "the judge's own (judge.in_child.guard.wraps): the name and docstring only",
    "jax.ShapeDtypeStruct": "__setattr__ compares the attribute being set before refusing to reassign it",
    "jax.custom_jvp": "update_wrapper with the fixed default names onto itself; __getattr__ forwards the "
    "attribute being read, a name the gate has checked",
    "jax.custom_vjp": "as jax.custom_jvp",
    "numpy.finfo": "__str__ reads its own fixed field names",
    "equinox.Module": "__hash__ reads the instance's own fields, named by its class statement (whose names the "
    "gate has checked)",
    "flax.nnx.Module": "sow, perturb, set_attributes and train (and eval, through set_attributes) set attributes "
    "named by a string or keyword: the gate refuses those attribute names (gate.DENIED_ATTRIBUTES); its other "
    "methods read and set no computed name",
    "flax.nnx.Rngs": "__init__ sets each keyword's stream on the new Rngs itself, an instance the submission "
    "makes: a double-underscore name there changes no class's behaviour, and __class__ or __dict__ refuse a "
    "stream",
    "flax.nnx.List": "gets, sets and deletes its elements as attributes named str(index), the digits of an "
    "int index it has checked (a submission's classes cannot define __str__)",
    "flax.nnx.Dropout": "only its docstring's example calls model.eval(); its code uses no computed name",
}
COMPUTED_NAME = re.compile(
    r"""\b(?:getattr|setattr|delattr|hasattr)\(\s*[^,()]+(?:\([^()]*\))?\s*,(?!\s*['"])"""  # name not a literal
    r"""|\b(?:eval|exec|compile|__import__|import_module|get_type_hints|update_wrapper)\("""
    r"""|\b(?:attrgetter|methodcaller)\((?!\s*['"])|_getframe"""
)


def _sources(obj):
    """The source of a callable of the lists, and of the methods of a class."""
    parts = [obj] + (list(vars(obj).values()) if isinstance(obj, type) else [])
    for part in parts:
        part = getattr(part, "__func__", None) or getattr(part, "fget", None) or part
        part = inspect.unwrap(part) if callable(part) else part
        try:
            yield inspect.getsource(part)
        except (TypeError, OSError):  # C code, or no source file
            continue


def test_no_listed_callable_uses_a_computed_attribute_name_or_evaluates_code_unless_reviewed():
    flagged = set()
    for module, view in _views().items():
        for name in allowed.MODULES[module]:
            obj = getattr(view, name)
            if not isinstance(obj, types.ModuleType) and any(COMPUTED_NAME.search(s) for s in _sources(obj)):
                flagged.add(f"{module}.{name}")
    assert flagged == set(REVIEWED)


@pytest.mark.parametrize(
    "module, name",
    [
        ("functools", "update_wrapper"),
        ("typing", "get_type_hints"),
        ("typing", "sys"),
        ("numpy", "load"),
        ("jax.tree_util", "register_dataclass"),
        ("jax", "config"),
        ("equinox", "importlib"),
        ("equinox", "internal"),
        ("equinox", "tree_serialise_leaves"),
        ("equinox", "filter_pure_callback"),
        ("equinox", "module_update_wrapper"),
        ("equinox.nn", "WeightNorm"),
        ("jax.ad_checkpoint", "checkpoint"),  # a real path to jax.checkpoint: not a misspelling
        ("flax.nnx", "update"),
        ("flax.nnx", "Optimizer"),
        ("flax.nnx", "display"),
    ],
)
def test_a_refused_name_says_why(module, name):
    refusal = allowed.name_refusal(module, name)
    assert refusal.startswith(f"`{module}.{name}` is not available in submissions: ")
    assert "check its spelling" not in refusal  # a reason of its own
