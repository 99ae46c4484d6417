"""A submission's source is parsed once on the trusted side, and that one reading says what the judge
reads of it: its scopes (functions, nested ones, import aliases), its checkpoint sites as written
and its loops (``judge.source.Source``).

The gate, the source reader, the learner's terms, the hints and the wording all ask one ``Source``,
so the text a learner submits is parsed by ``judge.data.syntax.parse`` once per grading, whatever its
verdict: counted here in the grading process (the children are other processes, with their own).
"""

import ast
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.data import policy_names, syntax
from judge.grading import inspecting, source_reading
from judge.source import Source
from judge.source.sites import CALL, PARTIAL
from tests.judge.runners import Wrapping

DOT = Path(__file__).resolve().parents[2] / "problems" / "checkpoint_dot_policy"


@pytest.fixture
def parses(monkeypatch) -> Counter:
    """How often each text was parsed by the judge's one parser entry, from now on."""
    counted: Counter = Counter()
    real = syntax.parse

    def counting(text, *args, **kwargs):
        counted[text] += 1
        return real(text, *args, **kwargs)

    monkeypatch.setattr(syntax, "parse", counting)
    return counted


@pytest.fixture(scope="module")
def problem():
    return load_problem(DOT)


@pytest.mark.parametrize(
    "submission, verdict",
    [
        ("policy_violation/no_checkpoint.py", "policy_violation"),  # the wording of the trace's cause
        ("policy_violation/no_policy.py", "policy_violation"),  # the policy's advice, in the form written
        ("policy_violation/dots_saveable.py", "policy_violation"),  # another policy's cause
        ("runtime_error/decorator_with_options.py", "runtime_error"),  # a hint in the form written
        ("wrong_answer/forgot_square.py", "wrong_answer"),  # the source's other problems told with it
        ("compile_error/syntax.py", "compile_error"),  # the gate's refusal and its hint
    ],
)
def test_one_grading_parses_the_submission_once(problem, parses, submission, verdict):
    text = (DOT / "submissions" / submission).read_text()
    report = grade(problem, text)
    assert report.verdict == verdict and report.cause
    assert parses[text] == 1


def test_inspect_parses_the_submission_once(problem, parses):
    text = (DOT / "submissions" / "policy_violation" / "no_policy.py").read_text()
    report = inspecting.inspect(problem, text, Wrapping())
    assert report.residuals and all(r.in_terms for r in report.residuals if r.kind == "primitive")
    assert parses[text] == 1


PROGRAM = textwrap.dedent(
    """\
    import functools
    import jax
    import jax.numpy as jnp
    from jax import checkpoint as ck
    from jax import lax


    def model(params, x):
        def layer(w, h):
            return jnp.tanh(h @ w)

        for w in params:
            x = ck(layer, policy=jax.checkpoint_policies.dots_saveable)(w, x)
        return x


    @functools.partial(jax.remat, prevent_cse=False)
    def step(carry, w):
        return carry @ w, None


    def scanned(ws, x):
        return lax.scan(step, x, ws)[0]
    """
)


def test_the_reading_says_the_programs_scopes_sites_and_loops(parses):
    source = Source(PROGRAM)
    assert parses[PROGRAM] == 0  # nothing is parsed before a reader asks
    # scopes: the functions at the top level, the nested one, the aliases of jax's names
    assert source.top_level_functions == ["model", "step", "scanned"]
    assert "layer" in source.functions and source.functions["layer"].lineno == 9
    assert source.imports["ck"] == "jax.checkpoint" and source.imports["lax"] == "jax.lax"
    assert source.imports["jnp"] == "jax.numpy"
    # the checkpoint sites as written: an aliased call with its policy, a decorator through partial
    assert [(w.kind, w.api, w.line, w.function, w.policy) for w in source.checkpoints] == [
        (CALL, "ck", 13, "layer", "jax.checkpoint_policies.dots_saveable"),
        (PARTIAL, "jax.remat", 17, "step", ""),
    ]
    # the loops: the Python loop around the aliased checkpoint, and the scan whose body is the decorated step
    [loop] = source.python_loops
    assert isinstance(loop, ast.For) and loop.lineno == 12 and source.loop_around(13) is loop
    assert source.loop_around(19) is None
    [scan] = source.lax_loops
    assert (scan.api, scan.line, [ast.unparse(b) for b in scan.bodies]) == ("jax.lax.scan", 23, ["step"])
    # the source reader follows the same reading: the alias's policy, and the decorated step run by the scan
    facts = source_reading.read(source, "scanned")
    sites = [(s.line, s.api, s.policy, s.prevent_cse, s.in_loop) for s in facts.sites]
    assert sites == [(17, "jax.remat", policy_names.plain("nothing_saveable"), False, True)]
    every = [(s.line, s.api, s.policy) for s in source_reading.read(source).sites]
    assert every == [
        (13, "jax.checkpoint", policy_names.plain("dots_saveable")),
        (17, "jax.remat", policy_names.plain("nothing_saveable")),
    ]
    assert parses[PROGRAM] == 1


def test_a_text_that_does_not_parse_is_read_as_nothing_with_its_error():
    source = Source("def f(:\n    return 1\n")
    assert source.tree is None and isinstance(source.error, SyntaxError) and source.error.lineno == 1
    assert source.checkpoints == [] and source.python_loops == [] and source.lax_loops == []
    assert source.top_level_functions == [] and source.imports == {} and source.scopes is None
    assert source.line(2) == "return 1"  # its lines are still there to quote
