"""The run-time guard: what submitted code sees of modules and builtins while it runs."""

import ctypes

import numpy as np
import pytest

from judge.in_child import allowed, guard


def _run(source: str, **names) -> dict:
    namespace = {"__name__": "submission", "__builtins__": guard.restricted_builtins(), **names}
    exec(compile(source, "submission.py", "exec"), namespace)  # noqa: S102 - what the child does
    return namespace


def test_an_import_statement_gets_a_view_that_holds_the_allowed_names_only():
    found = _run("import typing\nimport functools\nimport jax.numpy as jnp\nimport numpy as np\n")
    assert found["typing"].Callable is __import__("typing").Callable
    assert found["jnp"].sum is __import__("jax").numpy.sum
    for module, name in [
        ("typing", "sys"),
        ("typing", "get_type_hints"),
        ("functools", "update_wrapper"),
        ("np", "load"),
        ("jnp", "load"),
    ]:
        with pytest.raises(AttributeError, match="is not available in submissions"):
            getattr(found[module], name)
    with pytest.raises(AttributeError, match="has no attribute 'sine'"):
        found["jnp"].sine  # noqa: B018 - a misspelling reads as one


def test_submodules_are_views_too_however_they_are_imported():
    found = _run(
        "import jax\nimport jax.numpy\nfrom jax import numpy as a\nfrom jax.scipy import special\n"
        "import jax.numpy.linalg as b\n"
    )
    assert found["jax"].numpy is found["a"]
    assert found["b"] is found["jax"].numpy.linalg
    assert found["special"] is found["jax"].scipy.special
    with pytest.raises(AttributeError, match="`jax.scipy.stats` is not available"):
        found["jax"].scipy.stats  # noqa: B018
    with pytest.raises(AttributeError, match="`jax.experimental` is not available"):
        found["jax"].experimental  # noqa: B018


@pytest.mark.parametrize(
    "source, phrase",
    [
        ("import os\n", "import of 'os' is not allowed in submissions"),
        ("from typing import sys\n", "`from typing import sys` is not allowed"),
        ("from jax import profiler\n", "`from jax import profiler` is not allowed"),  # loaded, but not for them
        ("from functools import update_wrapper\n", "`from functools import update_wrapper` is not allowed"),
    ],
)
def test_an_import_statement_outside_the_lists_is_refused(source, phrase):
    with pytest.raises(ImportError, match=phrase):
        _run(source)


def test_a_call_of_the_import_function_gets_no_module():
    found = _run("mine = __import__('sys')\nmimic = __import__('os', None, None, ['__doc__'], 0)\n")
    assert found["mine"] is None and found["mimic"] is None


def test_c_code_importing_while_submitted_code_runs_still_gets_its_module():
    # C code (numpy's lazy imports, here CPython's own PyImport_ImportModule) calls the current
    # frame's __import__ and takes the module from sys.modules itself.
    c_import = ctypes.pythonapi.PyImport_ImportModule
    c_import.restype, c_import.argtypes = ctypes.py_object, [ctypes.c_char_p]
    found = _run("json = c_import(b'json')\n", c_import=c_import)
    assert found["json"] is __import__("json")


@pytest.mark.parametrize(
    "source",
    [
        "getattr(1, 'real')\n",
        "setattr(x, 'y', 1)\n",
        "eval('1')\n",
        "open('/etc/passwd')\n",
        "vars()\n",
        # reaching the builtin by value (here a subscript) changes nothing: it refuses whoever calls it
        "__builtins__['getattr'](1, 'real')\n",
        "import jax\njax.tree_util.tree_map(__builtins__['getattr'], [1], ['real'])\n",
    ],
)
def test_the_refused_builtins_refuse_whoever_calls_them(source):
    with pytest.raises(NameError, match="is not allowed in submissions"):
        _run(source, x=object())


def test_type_answers_but_builds_no_class():
    found = _run("""
import jax.numpy as jnp
import typing

kinds = [type(1), type(jnp.zeros(2)) is type(jnp.ones(3)), isinstance(int, type), issubclass(bool, int)]
metaclasses = [type(int), type(jnp.float32), type(typing.Protocol), type(type)]
alias = type[int]
""")
    assert found["kinds"] == [int, True, True, True]
    assert all(meta is guard.SubmissionType for meta in found["metaclasses"])
    assert found["alias"] == type[int]
    for source in [
        'type("Sink", (dict,), {"__setattr__": dict.setdefault})\n',
        'type(int)("Sink", (), {})\n',
        'import typing\ntype(typing.Protocol)("Sink", (), {})\n',
    ]:
        with pytest.raises(TypeError, match="type\\(\\) with three arguments"):
            _run(source)


def test_a_class_statement_may_define_call_and_an_equinox_module_works_but_no_metaclass_is_handed_out():
    found = _run("""
import equinox as eqx
import jax
import jax.numpy as jnp


class Scale:
    def __call__(self, x):
        return 2 * x


class Block(eqx.Module):
    linear: eqx.nn.Linear

    def __call__(self, h):
        return h + jnp.tanh(self.linear(h))


block = Block(eqx.nn.Linear(3, 3, key=jax.random.key(0)))
out = block(jnp.ones(3))
twice = Scale()(4)
meta = type(Block)
arrays, rest = eqx.partition(block, eqx.is_array)
""")
    assert found["twice"] == 8 and found["out"].shape == (3,)
    assert found["meta"] is guard.SubmissionType  # not Equinox's metaclass, which builds classes
    assert found["rest"].linear.weight is None
    for source in [
        'type("Call", (), {"__call__": print})\n',
        'import equinox as eqx\ntype(eqx.Module)("Sink", (eqx.Module,), {"__call__": print})\n',
    ]:
        with pytest.raises(TypeError, match="type\\(\\) with three arguments"):
            _run(source)


@pytest.mark.parametrize(
    "name", ["importlib", "internal", "module_update_wrapper", "tree_serialise_leaves", "filter_pure_callback", "debug"]
)
def test_the_equinox_view_holds_none_of_its_risky_names(name):
    view = _run("import equinox as eqx\n")["eqx"]
    with pytest.raises(AttributeError, match=f"`equinox.{name}` is not available in submissions: ") as refused:
        getattr(view, name)
    assert "check its spelling" not in str(refused.value)  # a reason of its own
    with pytest.raises(AttributeError, match="`equinox.nn.WeightNorm` is not available"):
        view.nn.WeightNorm  # noqa: B018


def test_wraps_copies_the_name_and_docstring_and_chooses_nothing_else():
    found = _run('''
import functools


def named(f):
    @functools.wraps(f)
    def inner(*args):
        return f(*args)
    return inner


@named
def step(x):
    """One step."""
    return x + 1
''')
    step = found["step"]
    assert step(1) == 2 and step.__name__ == "step" and step.__doc__ == "One step."
    assert step.__qualname__.endswith("inner") and step.__module__ == "submission"  # not copied: not identity
    with pytest.raises(TypeError, match="unexpected keyword argument 'assigned'"):
        _run("import functools\nfunctools.wraps(len, assigned=('__globals__',))\n")
    with pytest.raises(TypeError, match="decorates a function"):
        _run("import functools\nimport jax\nfunctools.wraps(len)(jax.checkpoint_policies)\n")


def test_a_policy_written_the_way_jax_writes_them_runs():
    found = _run("def policy(prim, *_, **__):\n    return prim.name == 'dot_general'\n")
    assert found["policy"](type("P", (), {"name": "dot_general"}), 1, axis=0) is True


def test_every_view_is_built_from_its_list():
    for module, names in allowed.MODULES.items():
        view = _run(f"import {module} as view\n")["view"]
        held = {n for n in vars(view) if not n.startswith("__")}
        assert held <= names, held - names
        assert {n for n in names - held if not allowed.module_allowed(f"{module}.{n}")} == set()
    np.testing.assert_equal(_run("import numpy as np\nx = np.arange(3)\n")["x"], np.arange(3))
