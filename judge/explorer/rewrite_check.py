"""Whether a Python loop rewritten for placements (``explore_loops``) computes what the loop as
written computes: both are run as written, on the same generated inputs, and the verifier's values
and gradients compared. The static reading of the loop is a model; this is what the program does.

It is the one part of an exploration that runs the program, so it runs on *small* arguments of
the same structure, not at the sizes explored: every size divisible by a factor (64, else 16, else
4) divided by it where at least 8 is left, the same size always to the same size, so that the
products still meet and a width still splits into its heads; the number of blocks (a small size)
is kept. What the rewrite could change is the order and number of the loop's turns, which these
keep. Where the function does not run at a smaller size, the sizes explored are used if they are
small enough to run (``RUN_ELEMENTS``)."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import numpy as np

from ..data.specs import ArraySpec, short_type
from ..grading import pipeline
from ..packages.package import Problem
from ..runners.boundary import Runner
from . import loops as explore_loops

FACTORS = (64, 16, 4)
SMALL_ELEMENTS = 1 << 20  # a candidate of smaller sizes is run only when this small
RUN_ELEMENTS = 1 << 23  # the sizes explored are run as they are only up to this (32 MiB of float32)


def _elements(specs: list[ArraySpec]) -> int:
    return sum(int(np.prod(s.shape({}), dtype=object)) for s in specs)


def smaller(specs: list[ArraySpec], factor: int) -> list[ArraySpec]:
    """``specs`` with each size divisible by ``factor`` divided by it, where at least 8 is left."""

    def size(d: int) -> int:
        return d // factor if d % factor == 0 and d // factor >= 8 else d

    return [ArraySpec.parse(short_type(s.dtype, [size(d) for d in s.shape({})])) for s in specs]


def candidates(specs: list[ArraySpec]) -> list[list[ArraySpec]]:
    """The argument sizes to compare the two loops on, the smallest first."""
    found: list[list[ArraySpec]] = []
    for factor in FACTORS:
        shrunk = smaller(specs, factor)
        if _elements(shrunk) <= SMALL_ELEMENTS and shrunk not in found:
            found.append(shrunk)
    if _elements(specs) <= RUN_ELEMENTS and specs not in found:
        found.append(specs)
    return found


def rewrite_differs(
    source: str,
    loop: explore_loops.Loop,
    specs: list[ArraySpec],
    problem_for: Callable[[list[ArraySpec]], Problem],
    wrt: list[str],
    runner: Runner,
) -> str:
    """What differs between the loop rewritten and as written, in a few words; "" when nothing
    does (or when the function runs at none of the sizes tried and the sizes explored are too
    large to run: then nothing could be compared, and the plans' own traces say whether it runs).
    ``problem_for``: the explorer's problem of the function as written, at the sizes given."""
    for sizes in candidates(specs):
        problem = problem_for(sizes)
        salt = secrets.randbits(62)
        written = pipeline.run(problem, source, problem.cases, runner, salt=salt)
        if written.failure is not None or not written.cases or written.cases[0].error is not None:
            continue  # a size the function does not take (a width its heads do not divide): try a larger one
        rewritten = pipeline.run(problem, loop.rewritten, problem.cases, runner, salt=salt)
        return _compare(written, rewritten, wrt)
    return ""


def _compare(written: pipeline.Outcome, rewritten: pipeline.Outcome, wrt: list[str]) -> str:
    if rewritten.failure is not None:
        return f"it failed: {rewritten.failure[1]}"
    if not rewritten.cases or rewritten.cases[0].error is not None:
        return f"it failed: {rewritten.cases[0].error.text()}" if rewritten.cases else "it did not run"
    mine, theirs = rewritten.cases[0], written.cases[0]
    if len(mine.value) != len(theirs.value) or len(mine.grads) != len(theirs.grads):
        return "the output has another structure"
    labelled = [("the output", g, w) for g, w in zip(mine.value, theirs.value)]
    labelled += [(f"the gradient with respect to {n}", g, w) for n, g, w in zip(wrt, mine.grads, theirs.grads)]
    for label, got, want in labelled:
        got, want = np.asarray(got), np.asarray(want)
        # Overflowing values (a deep stack on generated inputs) compare as equal where both overflow alike.
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
            return f"{label} differs"
    return ""
