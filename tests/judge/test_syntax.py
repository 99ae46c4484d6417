"""Python's parser in a long-lived grading parent (``judge.data.syntax``): a ``SystemError`` of the
interpreter's own state never becomes the learner's verdict or an internal error.

CPython 3.11.7's AST constructor keeps its recursion counter once per interpreter (CPython's
gh-106905): two threads that parse at once can reset it under each other. The suite's bank tests
grade both remat implementations at once, one thread each, and met it as ``SystemError: AST
constructor recursion depth mismatch`` in the middle of a grading."""

import ast
import gc
import sys
import threading
from pathlib import Path

import pytest

from judge import grade, load_problem
from judge.data import syntax
from tests.grading_cache import graded_as_the_bank

ROOT = Path(__file__).resolve().parents[2]
TEXT = "\n".join(
    f"def layer_{i}(w, x):\n    return [(a, {{'k': (1, 2, [b, x])}}) for a in range(3) for b in (w,)]"
    for i in range(200)
)


@pytest.fixture
def break_parser(monkeypatch):
    """Called, makes every parse in this process fail as the race makes it fail; returns the list of
    the parses it refused."""

    def start() -> list:
        refused = []

        def broken(text, mode, filename):
            refused.append(mode)
            raise SystemError("AST constructor recursion depth mismatch (before=45, after=28)")

        monkeypatch.setattr(syntax, "_parse_here", broken)
        return refused

    return start


@pytest.fixture
def parser_state_broken(break_parser):
    return break_parser()


def test_a_parse_refused_once_is_read_again_here(monkeypatch):
    real, calls = syntax._parse_here, []

    def once(text, mode, filename):
        calls.append(mode)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=45, after=28)")
        return real(text, mode, filename)

    monkeypatch.setattr(syntax, "_parse_here", once)
    assert ast.dump(syntax.parse(TEXT)) == ast.dump(ast.parse(TEXT))  # noqa: TID251 (the parse it stands for)
    assert len(calls) == 2


def test_a_parse_refused_here_every_time_is_read_in_a_fresh_interpreter(parser_state_broken):
    tree = syntax.parse(TEXT, filename="submission.py")
    assert ast.dump(tree, include_attributes=True) == ast.dump(ast.parse(TEXT), include_attributes=True)  # noqa: TID251
    assert ast.dump(syntax.parse("x @ w", mode="eval")) == ast.dump(ast.parse("x @ w", mode="eval"))  # noqa: TID251
    assert len(parser_state_broken) == 2 * syntax.RETRIES_HERE


def test_the_texts_own_error_is_raised_as_the_parser_raises_it_even_from_a_fresh_interpreter(parser_state_broken):
    with pytest.raises(SyntaxError) as raised:
        syntax.parse("def f(x):\n    return x +\n", filename="submission.py")
    assert (raised.value.lineno, raised.value.filename) == (2, "submission.py")
    try:  # a NUL: a SyntaxError or a ValueError, by the Python version, as ast.parse says it
        ast.parse("x = 1\x00")  # noqa: TID251 (the parse it stands for)
    except (SyntaxError, ValueError) as exc:
        with pytest.raises(type(exc), match=str(exc)):
            syntax.parse("x = 1\x00")


class _Finalized:
    """Runs Python code when collected: mid-parse, the interpreter may hand itself to another thread."""

    def __del__(self):
        threading.current_thread()


def _parse_in_two_threads(parse, text: str, rounds: int = 60) -> list[str]:
    """The conditions of the race: parses in two threads at once, each conversion interrupted by
    collections that run finalizers. What each parse raised."""
    errors, threshold = [], gc.get_threshold()
    gc.set_threshold(50, 1, 1)

    def parse_many():
        for _ in range(rounds):
            junk = [_Finalized() for _ in range(40)]
            for item in junk:
                item.cycle = item  # freed by the collector only, in the middle of someone's parse
            del junk
            try:
                parse(text)
            except BaseException as exc:  # noqa: BLE001 (any escape is the failure)
                errors.append(repr(exc))

    try:
        threads = [threading.Thread(target=parse_many) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        gc.set_threshold(*threshold)
    return errors


def test_two_threads_parsing_at_once_never_see_the_interpreters_state(monkeypatch):
    text = "\n".join(TEXT.splitlines()[:120])
    if sys.version_info < (3, 11, 8):  # the race is real here: plain ast.parse fails (about 1 in 4 on 3.11.7)
        assert any("recursion depth mismatch" in e for e in _parse_in_two_threads(ast.parse, text))  # noqa: TID251
    monkeypatch.setattr(syntax, "_parse_fresh", lambda *a: pytest.fail("a parse left this process"))
    assert _parse_in_two_threads(syntax.parse, text) == []


@pytest.mark.parametrize(
    "slug, submission, verdict",
    [
        ("checkpoint_dot_policy", "accepted/decorator.py", "accepted"),
        ("checkpoint_dot_policy", "policy_violation/no_policy.py", "policy_violation"),
        ("memory_budget_transformer", "policy_violation/plain.py", "policy_violation"),
    ],
)
def test_a_verdict_is_the_same_when_the_parent_cannot_parse(slug, submission, verdict, break_parser):
    problem = load_problem(ROOT / "problems" / slug)
    source = (ROOT / "problems" / slug / "submissions" / submission).read_text()
    honest = graded_as_the_bank(problem, source)  # the bank's own grading of the file, where it has one
    refused = break_parser()
    forced = grade(problem, source)
    assert refused, "the grading parsed nothing in the parent: the test forced nothing"
    assert honest.verdict == verdict
    assert (forced.verdict, forced.message, forced.cause, forced.advice) == (
        honest.verdict,
        honest.message,
        honest.cause,
        honest.advice,
    )
