import numpy as np
import pytest

from judge.data import policy_names
from judge.data.specs import ArraySpec, SpecError, generate, short_type


def test_spec_parses_symbols_literals_and_scalars():
    spec = ArraySpec.parse("f32[N,16]")
    assert spec.dtype == "float32" and spec.dims == ("N", 16)
    assert spec.shape({"N": 3}) == (3, 16)
    assert ArraySpec.parse("f32[]").shape({}) == ()
    assert str(ArraySpec.parse("bf16[a,b]")) == "bf16[a,b]"


@pytest.mark.parametrize("text", ["f32", "q8[3]", "f32[3,]", "f32[-1]", "f32[a b]", ""])
def test_bad_specs_are_refused_with_the_text_in_the_message(text):
    with pytest.raises(SpecError) as info:
        ArraySpec.parse(text)
    assert repr(text) in str(info.value) or "''" in str(info.value) or "dimension" in str(info.value)


def test_generation_is_seeded_and_typed():
    spec = ArraySpec.parse("f32[4,3]")
    a = generate(spec, (4, 3), "normal", 0.5, np.random.default_rng(1))
    b = generate(spec, (4, 3), "normal", 0.5, np.random.default_rng(1))
    assert a.dtype == np.float32 and a.shape == (4, 3)
    np.testing.assert_array_equal(a, b)
    assert short_type("float32", (4, 3)) == "f32[4,3]"


def test_policy_aliases_are_the_same_policy():
    assert policy_names.parse("checkpoint_dots") == policy_names.parse("dots_saveable")
    assert policy_names.parse("jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims") == policy_names.parse(
        "dots_with_no_batch_dims_saveable"
    )


def test_named_policies_ignore_name_order_and_nest():
    assert policy_names.parse("save_only_these_names('b', 'a')") == policy_names.parse(
        'save_only_these_names("a", "b")'
    )
    both = policy_names.parse("save_from_both_policies(dots_saveable, save_only_these_names('h'))")
    assert both == policy_names.parse("save_from_both_policies(save_only_these_names('h'), checkpoint_dots)")
    assert policy_names.render(policy_names.parse("save_only_these_names('a')")) == "save_only_these_names('a')"


def test_offloading_policies_are_named_by_their_memories_and_lists_as_jax_takes_them():
    dots = policy_names.parse('offload_dot_with_no_batch_dims("device", "pinned_host")')
    assert dots == policy_names.parse(
        "jax.checkpoint_policies.offload_dot_with_no_batch_dims(offload_dst='pinned_host', offload_src='device')"
    )
    assert dots != policy_names.parse('offload_dot_with_no_batch_dims("device", "unpinned_host")')
    assert policy_names.render(dots) == "offload_dot_with_no_batch_dims('device', 'pinned_host')"
    names = policy_names.parse(
        'save_and_offload_only_these_names(names_which_can_be_saved=["b", "a"], '
        'names_which_can_be_offloaded=("c",), offload_src="device", offload_dst="pinned_host")'
    )
    assert names == policy_names.offload_names(["a", "b"], ["c"], "device", "pinned_host")
    assert policy_names.from_wire(policy_names.to_wire(names)) == names
    assert policy_names.destination(names) == "pinned_host" and policy_names.destination(("dots_saveable",)) is None


@pytest.mark.parametrize(
    "text",
    [
        'offload_dot_with_no_batch_dims("device")',
        "offload_dot_with_no_batch_dims(1, 2)",
        'save_and_offload_only_these_names(names_which_can_be_saved=["a"], offload_src="device", offload_dst="pinned_host")',
        'save_and_offload_only_these_names(names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"], '
        'offload_src="device", offload_dst="pinned_host")',
    ],
    ids=["one memory", "memories not strings", "a list missing", "a name in both lists"],
)
def test_malformed_offloading_policies_are_refused(text):
    with pytest.raises(policy_names.PolicyNameError):
        policy_names.parse(text)


@pytest.mark.parametrize(
    "text", ["dots", "save_only_these_names(1)", "__import__('os')", "save_from_both_policies(dots_saveable)", "("]
)
def test_unknown_or_malformed_policies_are_refused(text):
    with pytest.raises(policy_names.PolicyNameError):
        policy_names.parse(text)
