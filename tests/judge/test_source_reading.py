"""The checkpoint API a submission uses, read from its source by the parent (issue 21): every way the
bank's learners write it is understood, the learner's own policies and derivative rules are told
apart from JAX's, and what the source cannot say is left to the values ("unknown", never a guess)."""

from pathlib import Path

import pytest

from judge import load_problem
from judge.data import policy_names
from judge.grading import source_problems, source_reading
from judge.grading.source_reading import read

ROOT = Path(__file__).resolve().parents[2]
DOTS = policy_names.plain("dots_with_no_batch_dims_saveable")
NOTHING = policy_names.plain("nothing_saveable")


def only_site(source: str):
    facts = read(source)
    assert len(facts.sites) == 1, facts
    return facts.sites[0]


@pytest.mark.parametrize(
    "source, policy",
    [
        ("import jax\nf = jax.checkpoint(g, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)\n", DOTS),
        ("import jax\nf = jax.remat(g, policy=jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims)\n", DOTS),
        (
            "import jax\ncp = jax.checkpoint_policies\nf = jax.checkpoint(g, policy=cp.dots_with_no_batch_dims_saveable)\n",
            DOTS,
        ),
        (
            "from jax import checkpoint_policies as cp, checkpoint\nf = checkpoint(g, policy=cp.dots_with_no_batch_dims_saveable)\n",
            DOTS,
        ),
        (
            "import jax\nP = jax.checkpoint_policies.dots_with_no_batch_dims_saveable\n"
            "def h(x):\n    return jax.checkpoint(g, policy=P)(x)\n",
            DOTS,
        ),
        (
            "import jax\ndef h(x):\n    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable\n"
            "    return jax.checkpoint(g, policy=policy)(x)\n",
            DOTS,
        ),
        (
            "import jax\nfrom functools import partial\n@partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)\n"
            "def f(x):\n    return x\n",
            DOTS,
        ),
        ("import jax\n@jax.checkpoint\ndef f(x):\n    return x\n", NOTHING),
        # `import jax.numpy` binds `jax` again, to the same module: still jax (it was read as uncertain,
        # and a right program was told it had no jax.checkpoint)
        ("import jax\nimport jax.numpy\nf = jax.checkpoint(g)\n", NOTHING),
        ("import jax\nf = jax.checkpoint(g)\n", NOTHING),
        ("import jax\nf = jax.checkpoint(g, policy=None)\n", NOTHING),
        (
            "import equinox as eqx\nimport jax\nf = eqx.filter_checkpoint(g, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)\n",
            DOTS,
        ),
        (
            "import jax\nKEEP = ('q', 'k')\nf = jax.checkpoint(g, policy=jax.checkpoint_policies.save_only_these_names(*KEEP))\n",
            policy_names.with_names("save_only_these_names", ("q", "k")),
        ),
        (
            "import jax\ncp = jax.checkpoint_policies\nf = jax.checkpoint(g, policy=cp.save_from_both_policies("
            "cp.save_only_these_names('gate'), cp.dots_with_no_batch_dims_saveable))\n",
            policy_names.both(policy_names.with_names("save_only_these_names", ("gate",)), DOTS),
        ),
        (
            "import jax\nf = jax.checkpoint(g, policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host'))\n",
            policy_names.offload_dots("device", "pinned_host"),
        ),
    ],
)
def test_every_way_of_writing_a_jax_policy_is_read(source, policy):
    site = only_site(source)
    assert site.policy == policy and not site.own


@pytest.mark.parametrize(
    "source",
    [
        "import jax\ndef mine(prim, *a, **k):\n    return True\nf = jax.checkpoint(g, policy=mine)\n",
        "import jax\nf = jax.checkpoint(g, policy=lambda prim, *a, **k: True)\n",
        "import jax\npolicy = type(jax.checkpoint_policies.dots_saveable)(1)\nf = jax.checkpoint(g, policy=policy)\n",
        "import jax\nclass Dots(type(jax.checkpoint_policies.dots_saveable)):\n    pass\nf = jax.checkpoint(g, policy=Dots(True))\n",
    ],
)
def test_a_policy_the_learners_code_builds_is_their_own(source):
    site = only_site(source)
    assert site.own and site.policy[0] == "custom"


@pytest.mark.parametrize(
    "source",
    [
        "import jax\ndef wrap(f, policy):\n    return jax.checkpoint(f, policy=policy)\n",  # a parameter
        "import jax\np = jax.checkpoint_policies.dots_saveable\np = jax.checkpoint_policies.nothing_saveable\n"
        "f = jax.checkpoint(g, policy=p)\n",  # bound twice
        "import jax\nf = jax.checkpoint(g, **options)\n",
    ],
)
def test_what_the_source_cannot_say_is_unknown_not_guessed(source):
    assert only_site(source).policy is None


def test_the_api_handed_around_as_a_value_leaves_the_decision_to_the_values():
    facts = read("import jax\nwrappers = [jax.checkpoint]\n")
    assert facts.sites == [] and facts.dynamic
    rules = load_problem(ROOT / "problems" / "checkpoint_dot_policy").structure_rules
    assert [p.kind for p in source_problems.problems(facts, rules)] == []


@pytest.mark.parametrize(
    "source, kind, backward",
    [
        ("import jax\n@jax.custom_vjp\ndef f(x):\n    return x\n", "custom_vjp", True),
        ("import jax\nf = jax.custom_vjp(g)\n", "custom_vjp", True),
        ("import jax\n@jax.custom_gradient\ndef f(x):\n    return x, lambda g: g\n", "custom_gradient", True),
        ("import equinox as eqx\n@eqx.filter_custom_vjp\ndef f(x):\n    return x\n", "eqx.filter_custom_vjp", True),
        (
            "import jax\nfrom functools import partial\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef f(x, n):\n    return x\n",
            "custom_vjp",
            True,
        ),
        ("import jax\njax.nn.relu.defjvps(lambda t, ans, v: t)\n", "redefined", True),
        ("import jax\n@jax.custom_jvp\ndef f(x):\n    return x\n", "custom_jvp", False),
        # implicit differentiation: the derivative comes from the solves handed in
        ("from jax import lax\ny = lax.custom_root(f, x0, solve, tangent_solve)\n", "lax.custom_root", True),
        ("import jax\ny = jax.lax.custom_linear_solve(mv, b, solve)\n", "lax.custom_linear_solve", True),
    ],
)
def test_derivative_rules_are_found_and_a_custom_jvp_is_not_a_backward_pass(source, kind, backward):
    facts = read(source)
    assert [(r.kind, r.backward) for r in facts.rules] == [(kind, backward)]


def test_the_problems_name_the_cause_and_the_line():
    rules = load_problem(ROOT / "problems" / "checkpoint_dot_policy").structure_rules
    facts = read(
        "import jax\n\n\ndef f(w1, w2, x):\n    return jax.checkpoint(g, policy=jax.checkpoint_policies.dots_saveable)(w1, w2, x)\n"
    )
    [problem] = source_problems.problems(facts, rules)
    assert problem.kind == "policy" and problem.line == 5
    assert problem.sentence == (
        "your jax.checkpoint (line 5) uses jax.checkpoint_policies.dots_saveable, where this "
        "problem requires policy=dots_with_no_batch_dims_saveable"
    )
    assert [p.kind for p in source_problems.problems(read("import jax\ny = 1\n"), rules)] == ["no_checkpoint"]


def test_no_checkpoint_advises_the_form_the_problem_requires_a_policy_only_where_one_is():
    """A bare-checkpoint problem (memory_budget_mlp asks for jax.checkpoint and no policy) must not
    be told to pass a policy; a problem with one names it, as the trace's cause does."""
    plain = (ROOT / "problems" / "memory_budget_mlp" / "submissions" / "policy_violation" / "plain.py").read_text()
    bare = load_problem(ROOT / "problems" / "memory_budget_mlp").structure_rules
    [problem] = source_problems.problems(read(plain), bare)
    assert problem.kind == "no_checkpoint" and problem.advice == "Try: wrap the computation in jax.checkpoint(...)."
    dots = load_problem(ROOT / "problems" / "checkpoint_dot_policy").structure_rules
    [problem] = source_problems.problems(read("import jax\ny = 1\n"), dots)
    assert problem.advice == (
        "Try: wrap the computation in jax.checkpoint(..., "
        "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)."
    )


def test_every_reference_and_accepted_submission_of_the_bank_reads_clean():
    """The source rules never refuse what the bank accepts (the trusted side must not be stricter
    than the problems' own solutions)."""
    for folder in sorted(p for p in (ROOT / "problems").iterdir() if (p / "problem.toml").is_file()):
        problem = load_problem(folder)
        for path in [folder / "reference.py", *sorted(folder.glob("submissions/accepted/*.py"))]:
            found = source_problems.problems(read(path.read_text()), problem.structure_rules)
            assert found == [], (path, found)


def test_a_source_that_does_not_parse_has_no_facts():
    assert read("def (:\n") == source_reading.SourceFacts()


# What never runs when the judge calls the entry point is not judged; what the entry point reaches,
# however indirectly, is.
LIVE = """import jax
import jax.numpy as jnp
P = jax.checkpoint_policies.dots_with_no_batch_dims_saveable

@jax.checkpoint
def first_attempt(x):
    return x

def _used(x):
    return jax.checkpoint(jnp.sin, policy=P)(x)

def _through_table(x):
    return jax.checkpoint(jnp.cos, policy=jax.checkpoint_policies.dots_saveable)(x)

TABLE = {"t": _through_table}

def entry(x):
    return _used(x) + TABLE["t"](x)

if __name__ == "__main__":
    print(jax.checkpoint(jnp.tan)(1.0))
"""


def test_only_the_sites_the_entry_point_reaches_are_read():
    lines = {line: text for line, text in enumerate(LIVE.splitlines(), 1)}
    reached = read(LIVE, "entry")
    assert [lines[s.line].strip() for s in reached.sites] == [
        "return jax.checkpoint(jnp.sin, policy=P)(x)",
        "return jax.checkpoint(jnp.cos, policy=jax.checkpoint_policies.dots_saveable)(x)",
    ]
    # Without an entry point (or one the module does not bind), only the __main__ block is left out.
    assert len(read(LIVE).sites) == len(read(LIVE, "not_defined").sites) == 3


def test_a_main_block_with_an_else_runs_and_is_read():
    source = "import jax\nif __name__ == '__main__':\n    pass\nelse:\n    f = jax.checkpoint(g)\ndef entry(x):\n    return f(x)\n"
    assert [s.line for s in read(source, "entry").sites] == [5]


@pytest.mark.parametrize(
    "helper, policy, own",
    [
        ("def choose():\n    return jax.checkpoint_policies.dots_with_no_batch_dims_saveable\n", DOTS, False),
        (
            "def choose():\n    p = jax.checkpoint_policies.dots_with_no_batch_dims_saveable\n    return p\n",
            DOTS,
            False,
        ),
        # two different returns, or a return the reader cannot follow: unknown, and the values decide
        (
            "def choose(big=True):\n    if big:\n        return jax.checkpoint_policies.dots_saveable\n"
            "    return jax.checkpoint_policies.nothing_saveable\n",
            None,
            False,
        ),
        ("def choose(p=None):\n    return p\n", None, False),
        # a helper that returns a function of the learner's is the learner's own policy
        ("def choose():\n    return lambda prim, *_, **__: True\n", ("custom", "<lambda>"), True),
    ],
)
def test_a_policy_from_a_helper_is_what_the_helper_returns(helper, policy, own):
    site = only_site(f"import jax\n{helper}f = jax.checkpoint(g, policy=choose())\n")
    assert (site.policy, site.own) == (policy, own)


def test_a_scan_body_handed_to_a_helper_is_in_the_loop():
    source = (
        "import jax\ndef run(body, h, xs):\n    return jax.lax.scan(body, h, xs)\n"
        "def entry(h, xs):\n    return run(jax.checkpoint(step, prevent_cse=False), h, xs)\n"
    )
    assert only_site(source).in_loop is True
    # handed in by a caller the reader cannot see: where it runs is unknown, not "outside any scan"
    unknown = "import jax\ndef run(body, h, xs):\n    return jax.lax.scan(body, h, xs)\nf = jax.checkpoint(step)\n"
    assert only_site(unknown).in_loop is None


@pytest.mark.parametrize(
    "filing",
    [
        # a decorator of the learner's files the function in a table on import
        "STEPS = {}\ndef register(f):\n    STEPS['s'] = f\n    return f\n@register\ndef hidden(x):\n    return {site}\n",
        # an assignment into a table binds no name, and runs on import
        "STEPS = {}\ndef hidden(x):\n    return {site}\nSTEPS['s'] = hidden\n",
        # a value computed by a call of the learner's own, on import
        "STEPS = {}\ndef keep(f):\n    STEPS['s'] = f\ndef hidden(x):\n    return {site}\n_ = keep(hidden)\n",
    ],
)
def test_a_function_filed_away_on_import_is_read_though_no_name_reaches_it(filing):
    site = "jax.checkpoint(g, policy=jax.checkpoint_policies.dots_saveable)(x)"
    source = "import jax\n" + filing.replace("{site}", site) + "def entry(x):\n    return STEPS['s'](x)\n"
    assert [s.written for s in read(source, "entry").sites] == ["jax.checkpoint_policies.dots_saveable"]
