"""Python's parser, asked safely from a process that lives for thousands of gradings.

Every reading of a submission's text on the trusted side (the gate, the source reader, the learner's
terms, the hints, the explorer) parses through ``parse`` here, never through ``ast.parse`` directly
(the lint refuses it elsewhere).

Why: CPython before 3.11.8 (and 3.12.0) keeps the counter that guards the recursion of the AST
constructor (the C code that turns the parser's tree into ``ast`` objects) once per interpreter, not
once per call (CPython's gh-106905). Each call sets it on entry and checks it on exit. When the
conversion runs Python code mid-way (an allocation starts a garbage collection, which calls a
finalizer or a weakref callback; JAX leaves many), another thread can take the interpreter, start a
parse of its own and reset the counter under the first; the first then fails with ``SystemError:
AST constructor recursion depth mismatch (before=45, after=28)``. Nothing is left wrong after the
call: the next parse sets the counter anew. The suite grades the bank under both remat
implementations at once, one thread each in one process, and met it once in some thousand gradings;
a grading parent that serves threads (a bench's graders, a threaded worker) meets it the same way.

So: our own parses take one lock (they never overlap one another), and a ``SystemError`` (which the
parser never raises for a text, only for its own state) is answered by parsing again, then by
parsing in a fresh interpreter where no other thread runs. A text's own fault (``SyntaxError``,
``ValueError`` for a NUL, ``RecursionError``, ``MemoryError``) is raised as ``ast.parse`` raises it.
Parses we do not make (the standard library's traceback formatting parses a line to place its
carets) can still overlap ours: the retry covers ours, and they are not on the path to a verdict.
"""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
import threading

RETRIES_HERE = 3  # parses in this process before a fresh one is asked
FRESH_TIMEOUT_S = 60  # a fresh interpreter's start and one parse of a text within the size limit

# How often the interpreter's state refused a parse since this process started, and how each was
# answered: read by the soak (``python -m devstack bench --soak``), which counts what the race did.
RECOVERED = {"here": 0, "fresh": 0}

# Reentrant: a finalizer run in the middle of a parse may itself parse, on the same thread.
_LOCK = threading.RLock()

# What the fresh interpreter runs: the text on standard input, the tree (or the text's own error) out.
_FRESH = """\
import ast, pickle, sys
text, mode, filename = pickle.loads(sys.stdin.buffer.read())
try:
    answer = ("tree", ast.parse(text, filename=filename, mode=mode))
except Exception as exc:
    answer = ("error", exc)
sys.stdout.buffer.write(pickle.dumps(answer))
"""


class ParserUnavailable(RuntimeError):
    """Python's parser failed in this process and in a fresh one: the judge's fault, never the text's."""


def parse(text: str, *, mode: str = "exec", filename: str = "<unknown>") -> ast.AST:
    """``ast.parse(text, filename, mode)``, immune to the interpreter state above."""
    failure: SystemError | None = None
    for _ in range(RETRIES_HERE):
        with _LOCK:
            try:
                tree = _parse_here(text, mode, filename)
            except SystemError as exc:
                failure = exc
                continue
        if failure is not None:
            RECOVERED["here"] += 1
        return tree
    RECOVERED["fresh"] += 1
    return _parse_fresh(text, mode, filename, failure)


def _parse_here(text: str, mode: str, filename: str) -> ast.AST:
    return ast.parse(text, filename=filename, mode=mode)


def _parse_fresh(text: str, mode: str, filename: str, failure: SystemError | None) -> ast.AST:
    """The same parse in a new interpreter (isolated mode: no site packages, no environment): it
    runs nothing but the parser on the text, so what it sends back is no submission's."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _FRESH],
            input=pickle.dumps((text, mode, filename)),
            capture_output=True,
            timeout=FRESH_TIMEOUT_S,
            check=False,
        )
        kind, value = pickle.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise ParserUnavailable(f"Python's parser failed here ({failure}) and in a fresh interpreter ({exc})") from exc
    if kind == "tree":
        return value
    raise value
