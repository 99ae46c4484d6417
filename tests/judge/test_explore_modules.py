"""The policy explorer on modules of neural-network libraries: an Equinox or Flax NNX module named
by the source (built from shapes) is explored as its call, its parameters taken from the module;
every figure equals the same computation written as a plain function of the same arrays."""

from __future__ import annotations

import pytest

from judge.cli import main
from judge.explorer.explore import ExploreError, default_function, explore
from judge.grading.grader import default_runner
from judge.in_child import gate

EQX_MLP = """
import equinox as eqx
import jax
import jax.numpy as jnp


class MLP(eqx.Module):
    layers: list

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = jnp.tanh(jax.vmap(layer)(x))
        return jnp.mean(jax.vmap(self.layers[-1])(x) ** 2)


def make_mlp(key):
    k1, k2 = jax.random.split(key)
    return MLP([eqx.nn.Linear(128, 256, key=k1), eqx.nn.Linear(256, 128, key=k2)])


model = eqx.filter_eval_shape(make_mlp, jax.random.key(0))
"""

# the same computation, the module's arrays as arguments (eqx.nn.Linear: weight @ x + bias), its
# loop over the layers but the last one too (a loop of one turn here, placed as the module's is)
PLAIN_MLP = """
import jax
import jax.numpy as jnp


def mlp(w1, b1, w2, b2, x):
    for w, b in [(w1, b1)]:
        x = jnp.tanh(jax.vmap(lambda v: w @ v + b)(x))
    return jnp.mean(jax.vmap(lambda v: w2 @ v + b2)(x) ** 2)
"""
MLP_PARAMS = ["f32[256,128]", "f32[256]", "f32[128,256]", "f32[128]"]

EQX_STACK = """
import equinox as eqx
import jax
import jax.numpy as jnp


def block(h, layer):
    w_in, w_out = layer
    return h + jnp.tanh(h @ w_in) @ w_out, None


class Stack(eqx.Module):
    w_in: jax.Array
    w_out: jax.Array

    def __call__(self, x):
        h, _ = jax.lax.scan(block, x, (self.w_in, self.w_out))
        return jnp.mean(h**2)


model = Stack(jax.ShapeDtypeStruct((4, 64, 128), jnp.float32), jax.ShapeDtypeStruct((4, 128, 64), jnp.float32))
"""

PLAIN_STACK = """
import jax
import jax.numpy as jnp


def block(h, layer):
    w_in, w_out = layer
    return h + jnp.tanh(h @ w_in) @ w_out, None


def stack(w_in, w_out, x):
    h, _ = jax.lax.scan(block, x, (w_in, w_out))
    return jnp.mean(h**2)
"""


EQX_LOOP = """
import equinox as eqx
import jax
import jax.numpy as jnp


class Block(eqx.Module):
    w_in: jax.Array
    w_out: jax.Array

    def __call__(self, h):
        return h + jnp.tanh(h @ self.w_in) @ self.w_out


class Stack(eqx.Module):
    blocks: list

    def __call__(self, x):
        h = x
        for block in self.blocks:
            h = block(h)
        return jnp.mean(h**2)


def make(key):
    keys = jax.random.split(key, 3)
    return Stack([Block(jax.random.normal(k, (32, 64)), jax.random.normal(k, (64, 32))) for k in keys])


model = eqx.filter_eval_shape(make, jax.random.key(0))
"""

PLAIN_LOOP = """
import jax.numpy as jnp


def stack(a0, b0, a1, b1, a2, b2, x):
    h = x
    for w_in, w_out in [(a0, b0), (a1, b1), (a2, b2)]:
        h = h + jnp.tanh(h @ w_in) @ w_out
    return jnp.mean(h**2)
"""

NNX_MLP = """
import jax.numpy as jnp
from flax import nnx


@nnx.dataclass
class MLP(nnx.Module):
    layers: nnx.List

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = nnx.tanh(layer(x))
        return jnp.mean(self.layers[-1](x) ** 2)


def make_mlp(rngs):
    return MLP(nnx.List([nnx.Linear(128, 256, rngs=rngs), nnx.Linear(256, 128, rngs=rngs)]))


model = nnx.eval_shape(lambda: make_mlp(nnx.Rngs(0)))
"""

# nnx.Linear: x @ kernel + bias; the state's leaves in the order of its keys (bias before kernel)
PLAIN_NNX_MLP = """
import jax.numpy as jnp


def mlp(b1, w1, b2, w2, x):
    for b, w in [(b1, w1)]:
        x = jnp.tanh(x @ w + b)
    return jnp.mean((x @ w2 + b2) ** 2)
"""
NNX_PARAMS = ["f32[256]", "f32[128,256]", "f32[128]", "f32[256,128]"]


MANY = """
import equinox as eqx
import jax
import jax.numpy as jnp


class Many(eqx.Module):
    ws: list

    def __call__(self, x):
        return x


model = Many([jax.ShapeDtypeStruct((1,), jnp.float32)] * 600)
"""

UNCALLED = """
import equinox as eqx
import jax
import jax.numpy as jnp


class Weights(eqx.Module):
    w: jax.Array


model = Weights(jax.ShapeDtypeStruct((2,), jnp.float32))
"""


# The walk's figures alone (``compile_s=0``): XLA's compilation of each plan is tested in test_explore.py.
def _figures(found):
    return [(r.plan, r.held_bytes, r.host_bytes, r.peak_bytes, r.flops, r.recomputed_flops) for r in found.rows]


@pytest.fixture(scope="module")
def mlp_pair():
    runner = default_runner()
    module = explore(EQX_MLP, "model", ["f32[64,128]"], runner, compile_s=0)
    plain = explore(PLAIN_MLP, "mlp", [*MLP_PARAMS, "f32[64,128]"], runner, wrt=["w1", "b1", "w2", "b2"], compile_s=0)
    return module, plain


def test_an_equinox_module_is_explored_from_its_parameters_as_a_function_of_them_would_be(mlp_pair):
    module, plain = mlp_pair
    assert module.library == "equinox" and plain.library == "function"
    assert module.parameters == [
        "model.layers[0].weight f32[256,128]",
        "model.layers[0].bias f32[256]",
        "model.layers[1].weight f32[128,256]",
        "model.layers[1].bias f32[128]",
    ]
    assert module.failed == [] and len(module.rows) >= 6
    for row in module.rows:
        assert row.held_bytes > 0 and row.peak_bytes > 0 and row.flops > 0
    assert _figures(module) == _figures(plain)
    # the input is not differentiated, the parameters are: nothing_saveable keeps them and x
    nothing = next(r for r in module.rows if r.plan == "nothing_saveable")
    assert nothing.held_bytes == (256 * 128 + 256 + 128 * 256 + 128 + 64 * 128) * 4


def test_a_modules_plan_is_written_with_equinoxs_checkpoint(mlp_pair):
    module, _ = mlp_pair
    dots = next(r for r in module.rows if r.plan == "dots_saveable")
    assert dots.code.startswith("eqx.filter_checkpoint(model, policy=jax.checkpoint_policies.dots_saveable)")
    found = module.to_dict()
    assert found["library"] == "equinox" and len(found["parameters"]) == 4


def test_a_modules_scan_gets_the_placements_of_a_functions():
    runner = default_runner()
    module = explore(EQX_STACK, "model", ["f32[32,64]"], runner, budget=1, budget_on="peak", compile_s=0)
    plain = explore(
        PLAIN_STACK,
        "stack",
        ["f32[4,64,128]", "f32[4,128,64]", "f32[32,64]"],
        runner,
        wrt=["w_in", "w_out"],
        compile_s=0,
    )
    assert "checkpoint every block" in [r.plan for r in module.rows]
    assert _figures(module) == _figures(plain)


def test_a_flax_nnx_module_is_explored_from_its_state_as_a_function_of_it_would_be():
    runner = default_runner()
    module = explore(NNX_MLP, "model", ["f32[64,128]"], runner, budget=300_000, compile_s=0)
    plain = explore(
        PLAIN_NNX_MLP, "mlp", [*NNX_PARAMS, "f32[64,128]"], runner, wrt=["b1", "w1", "b2", "w2"], compile_s=0
    )
    assert module.library == "nnx"
    assert module.parameters == [
        "model.layers[0].bias f32[256]",
        "model.layers[0].kernel f32[128,256]",
        "model.layers[1].bias f32[128]",
        "model.layers[1].kernel f32[256,128]",
    ]
    assert module.failed == [] and len(module.rows) >= 6
    for row in module.rows:
        assert row.held_bytes > 0 and row.peak_bytes > 0 and row.flops > 0
    assert _figures(module) == _figures(plain)
    assert module.best.code.startswith("nnx.remat(lambda module, *inputs: module(*inputs), policy=")


def test_an_nnx_module_with_a_random_stream_built_from_shapes_is_refused_with_where_it_is():
    source = (
        "from flax import nnx\n\nmodel = nnx.eval_shape(lambda: nnx.Sequential(nnx.Linear(8, 8, rngs=nnx.Rngs(0)), "
        "nnx.Dropout(0.1, rngs=nnx.Rngs(1))))\n"
    )
    with pytest.raises(ExploreError, match=r"model.layers\[1\].rngs.count is the type of a uint32 array"):
        explore(source, "model", ["f32[4,8]"], default_runner())


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("model.train()", "`.train` is not allowed: it sets attributes chosen by name"),
        ("model.eval()", "`.eval` is not allowed"),
        ("model.sow(nnx.Param, 'name', 1.0)", "`.sow` is not allowed"),
        ("nnx.update(model, nnx.split(model)[1])", "`nnx.update` is not available in submissions: it gets or sets"),
        ("from flax import linen", "`from flax import linen` is not allowed"),
    ],
)
def test_the_gate_refuses_what_sets_attributes_by_name_in_nnx(line, says):
    refused = gate.check(NNX_MLP + line + "\n")
    assert refused is not None and says in refused.message


def test_a_python_loop_in_a_modules_call_gets_the_placements_of_a_functions():
    runner = default_runner()
    module = explore(EQX_LOOP, "model", ["f32[16,32]"], runner, compile_s=0)
    plain = explore(
        PLAIN_LOOP,
        "stack",
        ["f32[32,64]", "f32[64,32]"] * 3 + ["f32[16,32]"],
        runner,
        wrt=["a0", "b0", "a1", "b1", "a2", "b2"],
        compile_s=0,
    )
    assert module.notes == [] and "checkpoint every block" in [r.plan for r in module.rows]
    every = next(r for r in module.rows if r.plan == "checkpoint every block")
    assert "for block in self.blocks:" in every.code and "jax.checkpoint(" in every.code
    assert _figures(module) == _figures(plain)


def test_the_default_name_is_what_the_source_defines_last():
    assert default_function(EQX_MLP) == "model"
    assert default_function(PLAIN_MLP) == "mlp"
    assert default_function("import jax\nWIDTH = 3\n") is None


@pytest.mark.parametrize(
    ("source", "name", "says"),
    [
        ("import jax.numpy as jnp\n\nscale = jnp.ones(3)\n", "scale", "scale is a value of type"),
        (EQX_MLP, "MLP", "MLP is a class: build the module"),
        (EQX_MLP, "missing", "the source defines no missing: name a function it defines, or a module"),
        ("import jax\n\nWIDTH = 128\n", "WIDTH", "WIDTH is a value of type int"),
        (MANY, "model", "model has 600 arrays; the explorer takes at most 512"),
        (UNCALLED, "model", "model is a module with no __call__"),
    ],
)
def test_a_name_the_explorer_cannot_use_is_refused_with_what_it_is(source, name, says):
    with pytest.raises(ExploreError) as refused:
        explore(source, name, ["f32[3]"], default_runner())
    assert says in str(refused.value)


def test_the_command_says_when_a_file_defines_nothing_to_explore(tmp_path):
    file = tmp_path / "constants.py"
    file.write_text("import jax\n\nWIDTH = 128\n")
    with pytest.raises(SystemExit, match="defines no function and builds no module"):
        main(["explore", str(file), "--args", "f32[3]"])
