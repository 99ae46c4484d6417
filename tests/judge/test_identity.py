"""Policies and derivatives known by identity (issue 10): what JAX made before the submission
existed, never what an object says about itself."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from judge.data import policy_names
from judge.inspection import derivatives, policies, replay
from judge.inspection.jax_internals import jex_core

FILE = __file__
cp = jax.checkpoint_policies
DotsSaveable = type(cp.dots_saveable)
Names = type(cp.save_only_these_names("a"))


def described(policy):
    return policies.describe(policy, FILE)


def test_jax_policies_and_objects_built_from_jax_classes_with_exact_fields_are_recognised_and_rebuilt():
    assert described(cp.checkpoint_dots).canonical == ("dots_saveable",)
    assert described(DotsSaveable(True)).rebuilt is cp.dots_with_no_batch_dims_saveable
    names = described(Names(frozenset({"b", "a"})))
    assert names.canonical == policy_names.parse("save_only_these_names('a', 'b')") and names.origin == "jax"
    both = described(cp.save_from_both_policies(cp.save_only_these_names("h"), cp.checkpoint_dots))
    assert both.canonical == policy_names.parse("save_from_both_policies(dots_saveable, save_only_these_names('h'))")
    assert described(both.rebuilt).canonical == both.canonical  # the rebuilt object is what it says


def test_offloading_policies_are_known_by_their_factorys_code_and_rebuilt_from_what_it_closed_over():
    dots = described(cp.offload_dot_with_no_batch_dims(offload_src="device", offload_dst="pinned_host"))
    assert dots.canonical == policy_names.parse('offload_dot_with_no_batch_dims("device", "pinned_host")')
    assert dots.origin == "jax" and described(dots.rebuilt).canonical == dots.canonical
    names = described(
        cp.save_and_offload_only_these_names(
            names_which_can_be_saved=("h2",),
            names_which_can_be_offloaded=["h1"],
            offload_src="device",
            offload_dst="pinned_host",
        )
    )
    assert names.canonical == policy_names.offload_names(["h2"], ["h1"], "device", "pinned_host")
    assert described(names.rebuilt).canonical == names.canonical


def test_an_offloading_policy_with_forged_cells_is_not_jax_policy():
    policy = cp.offload_dot_with_no_batch_dims("device", "pinned_host")
    cells = dict(zip(policy.__code__.co_freevars, policy.__closure__))
    cells["offload_dst"].cell_contents = type("Sly", (str,), {})("pinned_host")  # a str that is not a str
    found = described(policy)
    assert found.canonical[0] == "custom" and found.origin == "forged" and found.rebuilt is None


def test_a_factory_passed_as_the_policy_is_named():
    assert policies.factory_name(cp.offload_dot_with_no_batch_dims) == "offload_dot_with_no_batch_dims"
    assert policies.factory_name(cp.save_only_these_names) == "save_only_these_names"
    assert policies.factory_name(cp.dots_saveable) is None and policies.factory_name(lambda *a: a) is None


@pytest.mark.parametrize(
    "forged",
    [
        DotsSaveable(1),  # compares equal to the no-batch policy, but its field is not a bool
        DotsSaveable(
            type(
                "Truthy",
                (),
                {
                    "__eq__": lambda self, other: other is True,
                    "__bool__": lambda self: False,
                    "__hash__": lambda self: 1,
                },
            )()
        ),
        Names(frozenset({1})),
    ],
    ids=["int field", "falsy field equal to True", "names not str"],
)
def test_jax_classes_with_fields_of_other_types_are_not_jax_policies(forged):
    found = described(forged)
    assert found.canonical[0] == "custom" and found.origin == "forged" and found.rebuilt is None


def test_copying_a_combinators_name_and_closure_does_not_make_one():
    required = cp.save_from_both_policies(cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("gate"))

    def disguise(policy_1, policy_2):
        @functools.wraps(required)
        def policy(prim, *args, **params):
            return (policy_1, policy_2) and prim.name == "dot_general"

        return policy

    found = described(disguise(cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("gate")))
    assert found.canonical == ("custom", "policy") and found.origin == "yours"
    assert found.line == disguise.__code__.co_firstlineno + 1  # where the submission wrote it (its decorator)


def test_a_combinator_of_the_submissions_own_policy_is_not_rebuilt():
    found = described(cp.save_from_both_policies(cp.dots_saveable, lambda *_, **__: False))
    assert found.rebuilt is None and found.canonical[0] == "save_from_both_policies"


def test_jax_policies_changed_in_place_are_no_longer_jax_policies():
    original = cp.nothing_saveable.__code__
    try:
        functools.update_wrapper(cp.nothing_saveable, lambda *_, **__: True, assigned=("__code__",), updated=())
        assert not policies.REGISTRY.intact()
        assert described(cp.dots_saveable).origin == "forged"
    finally:
        cp.nothing_saveable.__code__ = original
    assert policies.REGISTRY.intact()


def custom_derivatives(fn, *args):
    found = []

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            if eqn.primitive.name.startswith("custom"):
                found.append(derivatives.hand_written(eqn, FILE))
            for sub in jex_core.jaxprs_in_params(eqn.params):
                walk(sub)

    walk(replay.trace(fn, list(args)).jaxpr)
    return found


@pytest.mark.parametrize(
    "fn",
    [
        jax.nn.relu,
        jax.vmap(jax.nn.relu),
        jax.nn.softplus,
        jax.nn.relu6,
        lambda x: jnp.logaddexp(x, 1.0),
        lambda x: jax.scipy.special.xlogy(x, x + 2.0),
        jax.checkpoint(jax.nn.relu),
    ],
    ids=["relu", "vmap relu", "softplus", "relu6", "logaddexp", "xlogy", "checkpointed relu"],
)
def test_jax_functions_with_custom_rules_of_their_own_define_no_derivative(fn):
    found = custom_derivatives(fn, np.ones((2, 3), np.float32))
    assert found and found == [None] * len(found)


def test_derivatives_written_by_the_submission_are_found():
    @jax.custom_jvp
    def by_jvp(x):
        return jnp.sin(x)

    by_jvp.defjvps(lambda t, ans, x: jnp.cos(x) * t)

    @jax.custom_vjp
    def by_vjp(x):
        return jnp.sin(x)

    by_vjp.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (jnp.cos(x) * g,))

    @jax.custom_gradient
    def by_gradient(x):
        return jnp.sin(x), lambda g: g * jnp.cos(x)

    x = np.ones(3, np.float32)
    assert [d["kind"] for d in custom_derivatives(by_jvp, x)] == ["custom_jvp"]
    assert [d["kind"] for d in custom_derivatives(jax.vmap(by_jvp), x)] == ["custom_jvp"]
    assert [d["kind"] for d in custom_derivatives(by_vjp, x)] == ["custom_vjp"]
    assert [d["kind"] for d in custom_derivatives(by_gradient, x)] == ["custom_vjp"]


def test_a_rule_the_submission_puts_on_a_jax_function_is_the_submissions():
    original = jax.nn.relu.jvp
    try:
        jax.nn.relu.defjvps(lambda t, ans, x: jnp.where(x > 0, t, 0.0))
        found = custom_derivatives(lambda x: jax.nn.relu(x * 2.0), np.ones(3, np.float32))
        assert [d["kind"] for d in found] == ["custom_jvp"]
    finally:
        jax.nn.relu.defjvp(original)
