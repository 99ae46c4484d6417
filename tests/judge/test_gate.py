"""The static gate: what it refuses (with the line and a reason), and what it must let through."""

from pathlib import Path

import numpy as np
import pytest

from judge.data import source_text
from judge.in_child import gate, guard

ROOT = Path(__file__).resolve().parents[2]
PACKAGED = (
    sorted(ROOT.glob("problems/*/reference.py"))
    + sorted(ROOT.glob("problems/*/starter.py"))
    + sorted(ROOT.glob("problems/*/submissions/*/*.py"))
)


@pytest.mark.parametrize("path", PACKAGED, ids=[str(p.relative_to(ROOT / "problems")) for p in PACKAGED])
def test_every_packaged_file_passes_the_gate(path):
    refusal = gate.check(path.read_text())
    if path.parent.name == "compile_error" and refusal:
        assert refusal.verdict == "compile_error"
    else:
        assert refusal is None, refusal


@pytest.mark.parametrize(
    "source, line, phrase",
    [
        ("import os\n", 1, "`import os` is not allowed: submissions may import only jax"),
        ("import jax\nimport jax.experimental\n", 2, "`import jax.experimental` is not allowed"),
        ("from jax import config\n", 1, "`from jax import config`"),
        ("from . import helper\n", 1, "relative imports are not allowed"),
        ("x = ().__class__.__base__.__subclasses__()\n", 1, "`__class__` is a double-underscore attribute"),
        ("import jax\nsrc = jax._src\n", 2, "`_src` is a private attribute"),
        # issue 21: the escape through a traced equation's code objects, each step refused on its own
        ("import jax\neqn = jax.make_jaxpr(abs)(1.0).jaxpr.eqns[0]\n", 2, "`.eqns` is not allowed"),
        ("def f(eqn):\n    return eqn.source_info.traceback\n", 2, "`.source_info` is not allowed"),
        ("def f(tb):\n    return tb.raw_frames()\n", 2, "`.raw_frames` is not allowed"),
        ("def f(code):\n    return code.replace(co_names=('open',))\n", 2, "the keyword `co_names=` is not allowed"),
        ("def f(code):\n    return code.replace(co_consts=())\n", 2, "the keyword `co_consts=` is not allowed"),
        (
            "import jax\njax.checkpoint = lambda f, **k: f\n",
            2,
            "assigning to or deleting an attribute (`jax.checkpoint`)",
        ),
        (
            "import jax\ncp = jax.checkpoint_policies\ncp.dots_saveable = None\n",
            3,
            "assigning to or deleting an attribute",
        ),
        ("import jax\ndel jax.numpy\n", 2, "assigning to or deleting an attribute"),
        ("exec('import os')\n", 1, "`exec` is not allowed: submissions cannot run code from strings or files"),
        ("eval('1')\n", 1, "`eval` is not allowed"),
        ("code = compile('1', 'x', 'eval')\n", 1, "`compile` is not allowed"),
        ("print(open('/etc/passwd').read())\n", 1, "`open` is not allowed: submissions cannot open files"),
        ("os = __import__('os')\n", 1, "`__import__` is a reserved double-underscore name"),
        ("import jax\nf = getattr(jax, 'checkpoint')\n", 2, "`getattr` is not allowed: reflection"),
        ("import jax\nsetattr(jax, 'checkpoint', None)\n", 2, "`setattr` is not allowed"),
        ("g = globals()\n", 1, "`globals` is not allowed"),
        ("s = '{0.__class__}'.format(1)\n", 1, "`.format` is not allowed: str.format can read attributes by name"),
        (
            "import jax\ndef f(x):\n    jax.debug.print('{}', x)\n    return x\n",
            3,
            "jax.debug.print and jax.debug.callback",
        ),
        ("import jax\ny = jax.pure_callback\n", 2, "host callbacks run Python outside the traced program"),
        ("import numpy as np\nw = np.load('weights.npy')\n", 2, "submissions cannot read or write files"),
        (
            "def f(input):\n    return input\n",
            1,
            "`input` is the name of a Python builtin that submissions may not use",
        ),
        ("def gen():\n    yield 1\n\nframe = gen().gi_frame\n", 4, "`.gi_frame` is not allowed"),
        ("class A:\n    def __init__(self):\n        pass\n", 2, "`__init__` is a reserved double-underscore name"),
        ("class A:\n    def __del__(self):\n        pass\n", 2, "`__del__` is a reserved double-underscore name"),
        ("def f(g):\n    return g.__call__\n", 2, "`__call__` is a double-underscore attribute"),
        ("__builtins__ = {}\n", 1, "`__builtins__` is a reserved double-underscore name"),
        # names of allowed modules outside their lists (judge.in_child.allowed), however the module is named
        (
            "import functools\nf = functools.update_wrapper\n",
            2,
            "`functools.update_wrapper` is not available in submissions: it gets or sets attributes chosen by name",
        ),
        ("from functools import update_wrapper\n", 1, "`from functools import update_wrapper` is not allowed"),
        (
            "import typing as t\nhints = t.get_type_hints\n",
            2,
            "`t.get_type_hints` is not available in submissions: it evaluates text as Python code",
        ),
        ("from typing import operator\n", 1, "`from typing import operator` is not allowed: it is another module"),
        ("import typing\nmodules = typing.sys.modules\n", 2, "`typing.sys` is not available in submissions"),
        (
            "import jax\nr = jax.tree_util.register_dataclass\n",
            2,
            "register your class with jax.tree_util.register_pytree_node",
        ),
        ("from jax import tree_util as tu\nr = tu.register_dataclass\n", 2, "`tu.register_dataclass` is not available"),
        ("import jax\nstats = jax.scipy.stats\n", 2, "`jax.scipy.stats` is not available in submissions"),
        (
            "import jax.numpy as jnp\ny = jnp.sine(1.0)\n",
            2,
            "`jnp.sine` is not available in submissions: it is not "
            "among the jax.numpy names that submissions may use; check",
        ),
        (
            "import functools\nimport jax\nd = functools.wraps(jax.jit, assigned=('__globals__',))\n",
            3,
            "its `assigned` and `updated` arguments copy attributes chosen by name",
        ),
        (
            "from functools import wraps as w\nd = w(len, ('__globals__',), ())\n",
            2,
            "write `functools.wraps(function)`",
        ),
        ("Sink = type('Sink', (dict,), {})\n", 1, "type() with three arguments builds a class from a dictionary"),
        ("import numpy as np\nwords = np.zeros(1).ctypes\n", 2, "`.ctypes` is not allowed: raw memory access"),
        ("import numpy as np\nnp.zeros(1).dump('w.pkl')\n", 2, "submissions cannot read or write files"),
        ("import jax\njax.lax.sin_p.def_impl(print)\n", 2, "may not redefine JAX's primitives"),
        ("patch = found.setattr\n", 1, "`.setattr` is not allowed: reflection"),
        # Equinox is allowed; the names in its namespace that reach further are not.
        ("import equinox as eqx\nos = eqx.importlib.import_module('os')\n", 2, "`importlib` imports modules by name"),
        ("from equinox import importlib\n", 1, "`from equinox import importlib`"),
        ("import equinox as eqx\nwarn = eqx.internal.warn_if\n", 2, "`.internal` is not allowed"),
        ("import equinox as eqx\ncb = eqx.filter_pure_callback\n", 2, "host callbacks run Python outside"),
        (
            "import equinox as eqx\neqx.tree_deserialise_leaves('w.eqx', None)\n",
            2,
            "submissions cannot read or write files",
        ),
        ("import equinox as eqx\nwrap = eqx.module_update_wrapper\n", 2, "writes attributes onto other objects"),
        ("import equinox.internal\n", 1, "`import equinox.internal` is not allowed"),
    ],
)
def test_refusals_name_the_line_and_a_reason(source, line, phrase):
    refusal = gate.check(source)
    assert refusal is not None and refusal.verdict == "forbidden"
    assert refusal.line == line
    assert phrase in refusal.reason, refusal.reason
    assert refusal.message.startswith(f"line {line}: ")


def test_a_syntax_error_is_a_compile_error_with_its_line():
    refusal = gate.check("import jax\n\ndef f(x)\n    return x\n")
    assert refusal.verdict == "compile_error" and refusal.line == 3 and "SyntaxError" in refusal.reason


def test_an_oversized_file_is_refused_without_parsing_it():
    refusal = gate.check("x = 1\n" * 20000)
    assert refusal.verdict == "forbidden" and "larger than 64 KiB" in refusal.reason


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("x = 1\x00\n", "NUL character (\\x00) at character 5"),
        ("x = '\udc80'\n", "not valid Unicode text at character 5"),
    ],
)
def test_text_python_cannot_read_is_a_compile_error_in_the_sites_words(source, words):
    refusal = gate.check(source)
    assert refusal.verdict == "compile_error" and words in refusal.reason
    assert refusal.reason == source_text.unreadable(source).message  # the site's form and API say the same


def test_absurd_nesting_is_refused_not_crashed_on():
    refusal = gate.check("x = " + "(" * 300 + "1" + ")" * 300 + "\n")
    assert refusal is not None and refusal.verdict in ("compile_error", "forbidden")


@pytest.mark.parametrize(
    "source",
    [
        "if __name__ == '__main__':\n    print('local test')\n",
        "import jax\n_cp = jax.checkpoint_policies\n\ndef _helper(x):\n    return x\n",
        "from functools import partial\nimport jax\nf = partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_saveable)\n",
        "def policy(prim, *_, **params):\n    return prim.name == 'name' and params.get('name') == 'h'\n",
        "from jax.numpy import *\nimport math\nimport typing\nimport itertools\nimport collections\n",
        "class Config:\n    size = 3\n\nsquares = [i * i for i in range(Config.size)]\n",
        "import numpy as np\nscale = np.float32(0.5) * np.sqrt(2.0)\n",
        "policy = lambda prim, *_, **__: prim.name == 'dot_general'\n",  # how JAX writes its policies
        "import functools\n\ndef named(f):\n    @functools.wraps(f)\n    def inner(*a):\n        return f(*a)\n"
        "    return inner\n",
        "import numpy as np\nimport jax.numpy as jnp\nxp = jnp if True else np\ntotal = xp.sum\n",
        "import numpy as np\n\ndef f(np):\n    return np.sine\n",  # a parameter, not the module
        "def same_kind(p, a, b):\n    return type(p)(a, b)\n",  # a NamedTuple rebuilt, not a class built
        "import equinox as eqx\nimport equinox.nn as enn\nfrom equinox import filter_checkpoint\n\n"
        "class Block(eqx.Module):\n    w: object\n\n    def __call__(self, x):\n        return x @ self.w\n",
    ],
)
def test_ordinary_solutions_pass(source):
    assert gate.check(source) is None


def _run(source: str) -> dict:
    namespace = {"__name__": "submission", "__builtins__": guard.restricted_builtins()}
    exec(compile(source, "submission.py", "exec"), namespace)  # noqa: S102 - what the child does
    return namespace


def test_the_childs_builtins_refuse_the_same_things_at_run_time():
    with pytest.raises(ImportError, match="import of 'os' is not allowed"):
        _run("import os\n")
    with pytest.raises(ImportError, match="from jax import config"):
        _run("from jax import config\n")
    with pytest.raises(NameError, match="name 'getattr' is not allowed"):
        _run("getattr(1, 'real')\n")
    with pytest.raises(NameError, match="name 'open' is not allowed"):
        _run("open('/etc/passwd')\n")


def test_the_childs_builtins_leave_equinox_working():
    import jax

    namespace = _run(
        "import equinox as eqx\nimport jax\nimport jax.numpy as jnp\n\n"
        "class Layer(eqx.Module):\n    w: jax.Array\n\n    def __call__(self, x):\n        return jnp.tanh(x @ self.w)\n\n"
        "def f(w, x):\n    return jnp.sum(eqx.filter_checkpoint(lambda m, x: m(x))(Layer(w), x))\n"
    )
    w = np.eye(3, dtype=np.float32)
    assert jax.grad(namespace["f"])(w, np.ones((2, 3), np.float32)).shape == (3, 3)


def test_the_childs_builtins_leave_jax_working():
    import jax

    namespace = _run("import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.maximum(x @ x, 0.0).sum()\n")
    x = np.ones((3, 3), np.float32)
    assert float(jax.grad(namespace["f"])(x).sum()) == pytest.approx(54.0)
