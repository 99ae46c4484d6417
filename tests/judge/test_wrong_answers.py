"""A wrong answer opens with what the learner's function returned against what was expected, in
their terms, with a pattern the two numbers show where there is one, and says where to look."""

import numpy as np

from judge.data.evidence import Aval
from judge.data.messages import TracedCase
from judge.grading import runtime_hints, wrong_answers


def case(value, grads=(), treedef="PyTreeDef(*)") -> TracedCase:
    return TracedCase(
        "sample-1",
        treedef=treedef,
        value=[np.asarray(v, np.float32) for v in value],
        grads=[np.asarray(g, np.float32) for g in grads],
    )


def told(got: TracedCase, want: TracedCase) -> tuple[str, str]:
    return wrong_answers.told(got, want, ("w",), 1e-5, 1e-5, "sample-1")


def test_a_wrong_number_is_told_as_got_against_expected_with_advice_on_the_computation():
    cause, advice = told(case([32.85]), case([84.56]))
    assert cause == (
        "Your function computes another value than the statement's: it returns 32.85 where 84.56 is expected "
        "(case sample-1)."
    )
    assert advice.startswith("Try: a checkpoint never changes what is computed")


def test_a_whole_factor_is_pointed_out_and_any_other_ratio_of_two_numbers_is_not():
    assert "It is 12 times the expected one" in told(case([0.3265 * 12]), case([0.3265]))[0]
    assert "times" not in told(case([32.85]), case([84.56]))[0]  # two numbers always have some ratio
    assert "times" not in told(case([0.0000524]), case([8.529]))[0]  # a huge one is near some whole number
    cause = told(case([[[1.5, 3.0], [-4.5, 6.0]]]), case([[[1.0, 2.0], [-3.0, 4.0]]]))[0]
    assert "at index (0, 0)" in cause and "Every element is 1.5 times the expected one" in cause
    assert "sign flipped" in told(case([[1.0, -2.0]]), case([[-1.0, 2.0]]))[0]


def test_right_values_with_a_wrong_gradient_say_so_and_name_the_argument():
    cause, advice = told(case([1.0], [[0.5, 2.0]]), case([1.0], [[0.5, 1.0]]))
    assert cause.startswith("Your function's values are right, but its gradient with respect to w is not")
    assert cause.endswith("it is 2 at index (1,) where 1 is expected (case sample-1).")
    assert "stop_gradient" in advice


def test_a_difference_only_on_other_inputs_tells_no_numbers():
    cause, advice = told(case([1.0], [[1.0]]), case([1.0], [[1.0]]))
    assert (cause, advice) == (wrong_answers.HIDDEN_CAUSE, wrong_answers.HIDDEN_ADVICE)
    assert not any(ch.isdigit() for ch in cause)


def test_a_shape_or_dtype_is_told_from_the_verifiers_types():
    cause, advice = wrong_answers.told_types([Aval("float32", [8])], [Aval("float32", [])])
    assert cause == "Your function returns an array of shape (8,), where the statement's returns a single number."
    assert "reduce the result to a single number" in advice
    cause, _ = wrong_answers.told_types([Aval("float64", [])], [Aval("float32", [])])
    assert cause == "Your function returns float64 values, where the statement's returns float32."
    cause, _ = wrong_answers.told_types([Aval("float32", []), Aval("float32", [])], [Aval("float32", [])])
    assert cause.startswith("Your function returns 2 arrays in another structure")


def test_a_nan_points_at_the_step_that_overflows():
    cause, advice = told(case([[[1.0, np.nan]]]), case([[[1.0, 2.0]]]))
    assert cause.startswith("Your function returns nan at index (0, 1) (case sample-1)")
    assert "divides by zero" in cause and "log" in advice


def test_code_that_cannot_run_is_told_its_line_or_the_name_the_problem_calls():
    program = "import jax\n\ndef f(w1, w2, x)\n    return x\n"
    assert runtime_hints.hint("line 3: SyntaxError: expected ':'", None, "", program) == (
        "Your code is not valid Python at line 3 (`def f(w1, w2, x)`): expected ':'.",
        "Try: end line 3 with a colon, as every def, if, for and with line needs.",
    )
    cause, advice = runtime_hints.hint(
        "the entry point checkpoint_dot_policy() is not defined", None, "", "def dot_policy(w1, w2, x):\n    return x\n"
    )
    assert cause.endswith("the one this problem calls. Yours defines `dot_policy`.")
    assert (
        advice
        == "Try: name your function `checkpoint_dot_policy`, as the starter code does: def checkpoint_dot_policy(...)."
    )


def test_a_policy_called_with_no_arguments_is_told_to_drop_the_parentheses():
    line = "    return jax.checkpoint(f, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable())(w1, w2, x)"
    cause, advice = runtime_hints.hint(
        "TypeError: DotsSaveable.__call__() missing 1 required positional argument: 'prim'", 10, line.strip(), line
    )
    assert cause.startswith("Your code calls a policy with no arguments (line 10): jax.checkpoint_policies.")
    assert "DotsSaveable" not in cause + advice  # JAX's class, which the learner never wrote
    assert (
        advice
        == "Try: pass it without the parentheses: policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable."
    )


def test_a_branch_advice_quoting_braces_of_the_learners_code_is_not_formatted():
    program = "import jax\n\n\ndef f(x, flag):\n    if {'on': flag}['on']:\n        return x\n    return -x\n"
    told = runtime_hints.hint("TracerBoolConversionError: bool[]", 5, "if {'on': flag}['on']:", program)
    assert told is not None and told[1].startswith("Try: ")


def test_a_function_that_returns_nothing_is_told_to_return_its_result():
    cause, advice = told(case([], treedef="PyTreeDef(None)"), case([1.0]))
    assert cause.startswith("Your function returns nothing (None)") and advice.startswith("Try: return the result")
