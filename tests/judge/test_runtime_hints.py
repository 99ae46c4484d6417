"""A sample case's runtime error opens with its cause in the learner's terms, then one change."""

from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.grading import runtime_hints

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "slug, relative, cause, advice",
    [
        (
            "static_argnums_training_flag",
            "runtime_error/traced_flag.py",
            "Your code asks Python to branch on a traced value (line 8)",
            "static_argnums",
        ),
        (
            "compile_time_eval",
            "runtime_error/no_compile_time_eval.py",
            "Your code asks Python to branch on a traced value (line 11)",
            "jax.ensure_compile_time_eval()",
        ),
        (
            "equinox_scan_layers",
            "runtime_error/scan_the_module.py",
            "Your code passes a model that holds functions",
            "eqx.partition(model, eqx.is_array)",
        ),
        (
            "checkpoint_dot_policy",
            "runtime_error/string_policy.py",
            "Your code calls a string as a function (line 7): a policy is given as a function object",
            "policy=jax.checkpoint_policies.<name> (no quotes)",
        ),
        (
            "write_a_policy",
            "runtime_error/returns_string.py",
            "Your policy returns something other than True or False",
            "return a bool",
        ),
        (
            "checkpoint_dot_policy",
            "runtime_error/shape_mismatch.py",
            "Your matrix product's two sides do not fit (line 6)",
            "x @ w, not w @ x",
        ),
        (
            "equinox_filter_checkpoint",
            "runtime_error/plain_jax_checkpoint.py",
            "Your code passes a model that holds functions",
            "eqx.filter_checkpoint",
        ),
        (
            "offload_dots_to_host",
            "runtime_error/factory_not_called.py",
            "Your policy= is given the policy's factory, not a policy (line 12)",
            "offload_dot_with_no_batch_dims('device', 'pinned_host')",
        ),
        (
            "offload_some_names",
            "runtime_error/name_in_both_lists.py",
            "Your policy lists a name both among the values to keep on the device and among those to move",
            "each name in one list only",
        ),
        (
            "offload_some_names",
            "runtime_error/memories_swapped.py",
            "Your offloading policy moves saved values the wrong way",
            "offload_src='device', offload_dst='pinned_host'",
        ),
        (
            "checkpoint_dot_policy",
            "runtime_error/decorator_with_options.py",
            "Your decorator `@jax.checkpoint(policy=...)` (line 6) calls jax.checkpoint with options but no function",
            "`@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)` "
            "(with `import functools` at the top) in place of `@jax.checkpoint(policy=...)`",
        ),
        (
            "static_argnums_training_flag",
            "runtime_error/flag_in_decorated.py",
            "Your code asks Python to branch on a traced value (line 10)",
            "add static_argnums=(2,) to your jax.checkpoint at line 7, as `@partial(jax.checkpoint, "
            "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable, static_argnums=(2,))`",
        ),
        (
            "static_argnums_training_flag",
            "runtime_error/flag_in_helper.py",
            "Your code asks Python to branch on a traced value (line 6)",
            "make `is_training` a static argument of your checkpoint of body (it reaches `if training:` as "
            "`training`): add static_argnums=(2,) to your jax.remat at line 17",
        ),
        (
            "recursive_checkpoint",
            "runtime_error/one_level_per_link.py",
            "On a hidden case, your code calls itself more deeply than Python allows",
            "let each call take half of what is left",
        ),
    ],
)
def test_a_packaged_runtime_error_is_told_its_cause_and_a_change(slug, relative, cause, advice):
    problem = load_problem(ROOT / "problems" / slug)
    report = grade(problem, (problem.path / "submissions" / relative).read_text())
    assert report.verdict == "runtime_error"
    assert report.cause.startswith(cause) and advice in report.advice and report.advice.startswith("Try: ")
    for internal in ("bool[]", "PjitFunction", "jaxlib", "ad_checkpoint", "dot_general", "AssertionError", "<class"):
        assert internal not in report.cause + report.advice


def test_a_hint_that_needs_its_line_does_not_guess():
    assert runtime_hints.hint("TypeError: 'str' object is not callable", 3, 'name = "x"; name()') is None
    assert runtime_hints.hint("ZeroDivisionError: division by zero", 3, "1 / 0") is None


def test_a_branch_line_that_is_no_expression_up_to_its_colon_keeps_the_general_advice():
    # `if lambda v: v:` read up to its first colon is `lambda v`, which does not parse: the parent read
    # it unguarded and the grading would have ended in an internal error, not the learner's runtime error
    program = "import jax\n\n\ndef f(x):\n    if lambda v: v:\n        return x\n"
    text = "TracerBoolConversionError: Attempted boolean conversion of traced array"
    cause, advice = runtime_hints.hint(text, 5, "    if lambda v: v:", program)
    assert cause.startswith("Your code asks Python to branch on a traced value (line 5)")
    assert advice == runtime_hints.HINTS[0].advice


@pytest.mark.parametrize("condition", ["x.sum() > 0", "x[0] > 0", "jnp.any(x > 0)"])
def test_a_branch_on_an_arrays_values_is_not_told_to_make_the_array_static(condition):
    # the learner compares the array's values, not a flag: static_argnums on an array fails, and the
    # choice between arrays is jnp.where or jax.lax.cond, as the general advice says
    program = (
        "import jax\nimport jax.numpy as jnp\n\n\ndef f(x):\n"
        f"    if {condition}:\n        return x\n    return -x\n\n\ng = jax.checkpoint(f)\n"
    )
    text = "TracerBoolConversionError: Attempted boolean conversion of traced array"
    cause, advice = runtime_hints.hint(text, 6, f"    if {condition}:", program)
    assert cause.startswith("Your code asks Python to branch on a traced value (line 6)")
    assert "static" not in advice.split("jnp.where")[0].split("a flag passed")[0], advice
    assert "jnp.where" in advice


def test_an_error_without_a_hint_keeps_the_report_as_it_was():
    problem = load_problem(ROOT / "problems" / "checkpoint_dot_policy")
    source = 'def checkpoint_dot_policy(w1, w2, x):\n    return {"a": x}["b"]\n'  # a KeyError: no hint knows it
    report = grade(problem, source)
    assert report.verdict == "runtime_error" and report.cause == "" and report.advice == ""


def test_a_bare_assertion_is_told_of_offloading_only_where_the_program_swaps_the_memories():
    swapped = 'save_and_offload_only_these_names(offload_src="pinned_host", offload_dst="device")'
    assert runtime_hints.hint("AssertionError: ", None, "", swapped)[0].startswith("Your offloading policy")
    assert runtime_hints.hint("AssertionError: ", 4, "assert x > 0", "assert x > 0") is None
    # the memories named through constants: the program still says which policy and which memory
    named = (
        'HOST, DEVICE = "pinned_host", "device"\n'
        "policy = jax.checkpoint_policies.save_and_offload_only_these_names(\n"
        '    names_which_can_be_saved=["h2"], names_which_can_be_offloaded=["h1"], offload_src=HOST, offload_dst=DEVICE)\n'
    )
    assert (
        runtime_hints.hint("AssertionError: ", None, "", named)[1]
        == "Try: offload_src='device', offload_dst='pinned_host'."
    )


DNB = "jax.checkpoint_policies.dots_with_no_batch_dims_saveable"
# What a learner writes when they follow the advice (the code it quotes, where it quotes one), and what
# the grading then says: (problem, packaged file, a phrase of its advice, the edits, the verdict after).
FOLLOWED = [
    (  # the decorator called with its options: the functools.partial form runs
        "checkpoint_dot_policy",
        "runtime_error/decorator_with_options.py",
        f"`@functools.partial(jax.checkpoint, policy={DNB})` (with `import functools` at the top)",
        [
            ("import jax\n", "import functools\n\nimport jax\n"),
            (f"@jax.checkpoint(policy={DNB})", f"@functools.partial(jax.checkpoint, policy={DNB})"),
        ],
        "accepted",
    ),
    (  # a bare decorator told to take a policy: as a decorator, not @jax.checkpoint(policy=...)
        "checkpoint_dot_policy",
        "policy_violation/no_policy.py",
        f"write the decorator at line 5 as `@functools.partial(jax.checkpoint, policy={DNB})` (with `import "
        "functools` at the top), in place of `@jax.checkpoint`",
        [
            ("import jax\n", "import functools\n\nimport jax\n"),
            ("@jax.checkpoint\n", f"@functools.partial(jax.checkpoint, policy={DNB})\n"),
        ],
        "accepted",
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/flag_in_decorated.py",
        f"`@partial(jax.checkpoint, policy={DNB}, static_argnums=(2,))`",
        [(f"@partial(jax.checkpoint, policy={DNB})", f"@partial(jax.checkpoint, policy={DNB}, static_argnums=(2,))")],
        "accepted",
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/flag_in_helper.py",
        f"`jax.remat(body, policy={DNB}, static_argnums=(2,))`",
        [(f"jax.remat(body, policy={DNB})", f"jax.remat(body, policy={DNB}, static_argnums=(2,))")],
        "accepted",
    ),
    (
        "static_argnums_training_flag",
        "runtime_error/traced_flag.py",
        f"`jax.checkpoint(body, policy={DNB}, static_argnums=(2,))`",
        [(f"jax.checkpoint(body, policy={DNB})", f"jax.checkpoint(body, policy={DNB}, static_argnums=(2,))")],
        "accepted",
    ),
    (  # each call takes half of what is left: about log2(depth) levels deep
        "recursive_checkpoint",
        "runtime_error/one_level_per_link.py",
        "let each call take half of what is left",
        [
            (
                "        if n == 0:\n            return v\n"
                "        rest = jax.checkpoint(lambda u: chain(jnp.sin(u), n - 1), "
                "policy=jax.checkpoint_policies.nothing_saveable)\n"
                "        return rest(v)\n",
                "        if n == 1:\n            return jnp.sin(v)\n"
                "        half = n // 2\n"
                "        first = jax.checkpoint(lambda u: chain(u, half), policy=jax.checkpoint_policies.nothing_saveable)\n"
                "        return chain(first(v), n - half)\n",
            )
        ],
        "accepted",
    ),
]


@pytest.mark.parametrize("slug, relative, advice, edits, verdict", FOLLOWED, ids=[f"{f[0]}/{f[1]}" for f in FOLLOWED])
def test_the_advice_in_the_form_written_runs_when_followed(slug, relative, advice, edits, verdict):
    problem = load_problem(ROOT / "problems" / slug)
    source = (problem.path / "submissions" / relative).read_text()
    told = grade(problem, source)
    assert told.cause and advice in told.advice, told.advice
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new, 1)
    followed = grade(problem, source)
    assert followed.verdict == verdict, (followed.message, followed.cause)


def test_jax_checkpoint_given_its_options_only_is_told_the_form_that_runs_in_every_spelling():
    no_fun = "TypeError: checkpoint() missing 1 required positional argument: 'fun' (line {})"
    called = "import jax\n\n\ndef f(x):\n    return jax.checkpoint(policy=P)(g)(x)\n"
    cause, advice = runtime_hints.hint(no_fun.format(5), None, "", called)
    assert cause.startswith("Your `jax.checkpoint(policy=...)(g)` (line 5) calls jax.checkpoint with options")
    assert advice == "Try: `jax.checkpoint(g, policy=P)`: the function first, then the options."
    imported = "from functools import partial\nfrom jax import remat\n\n\n@remat(static_argnums=(1,))\ndef f(x, n):\n    pass\n"
    cause, advice = runtime_hints.hint(no_fun.format(5).replace("checkpoint()", "remat()"), None, "", imported)
    assert cause.startswith("Your decorator `@remat(static_argnums=...)` (line 5) calls remat with options")
    assert advice.startswith("Try: `@partial(remat, static_argnums=(1,))` in place of")  # partial as imported
    unread = runtime_hints.hint(no_fun.format(3), None, "", "this is not Python(")
    assert unread is not None and "@functools.partial(jax.checkpoint, policy=...)" in unread[1]


def test_an_equinox_decorator_is_advised_in_its_own_form():
    from judge.grading import written_form

    program = "import equinox as eqx\n\n\n@eqx.filter_checkpoint\ndef f(x):\n    return x\n"
    written = written_form.at_line(program, None)
    assert written_form.with_argument(program, written, "policy", "P") == ("@eqx.filter_checkpoint(policy=P)", "")


def test_a_hidden_case_error_is_told_without_its_text():
    """The samples run; a hidden case's error is told by its kind, never its words (which may hold sizes)."""
    text = "TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[17]."
    cause, _ = runtime_hints.first_error([(False, text, 4, "    if flag:")], "def f(x, flag):\n    pass\n")
    assert cause.startswith("On a hidden case, your code asks Python to branch on a traced value (line 4)")
    assert "17" not in cause
    assert runtime_hints.first_error([(False, "KeyError: 'size 17'", 4, "")], "") is None
