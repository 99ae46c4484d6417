"""What a wrong answer is told first: which number differs, in the learner's terms, and where to
look for the mistake.

The case's row keeps the comparison's exact words (index, tolerance, max error); the cause a
learner reads first says what their function returned against what was expected, and a pattern
the two numbers show where there is one (a constant factor, a flipped sign). A checkpoint never
changes what is computed, so the advice points at the computation, not at the checkpoint. Only a
sample case is worded so; a hidden case says that its inputs differ, never its sizes.
"""

from __future__ import annotations

import numpy as np

from ..data.evidence import Aval
from ..data.messages import TracedCase
from .compare import compare_arrays, first_wrong, pair

VALUES_ADVICE = (
    "Try: a checkpoint never changes what is computed, so the mistake is in the computation itself: compare "
    "each step of yours with the statement's formula, in order (which function, the order of the layers, "
    "the axis each sum or softmax runs over, every scale and skip connection), and run the samples."
)
GRADIENT_ADVICE = (
    "Try: let JAX derive the gradient of the plain computation: a stop_gradient, a derivative rule of your "
    "own, or a value your function takes from outside its arguments changes the gradient and not the value."
)
HIDDEN_CAUSE = (
    "Your function gives the expected values on the sample cases, but not on other inputs: a hidden case's, or "
    "hidden inputs of the samples' own shapes."
)
HIDDEN_ADVICE = (
    "Try: look for what your code takes from the samples instead of from its arguments (a constant copied from "
    "a sample, a fixed size or index, a value computed once outside the function), and run your function on "
    "inputs of other values and sizes."
)


def told(got: TracedCase, want: TracedCase, wrt, rtol: float, atol: float, case: str) -> tuple[str, str]:
    """(cause, advice) for a sample case whose outputs or gradients differ from the reference's."""
    if got.treedef != want.treedef or len(got.value) != len(want.value):
        return _structure(len(got.value), len(want.value))
    single = len(want.value) == 1
    for i, (g, w) in enumerate(zip(got.value, want.value)):
        found = _told_array(_who(single, i), g, w, rtol, atol, case)
        if found is not None:
            return found
    for name, g, w in zip(wrt, got.grads, want.grads):
        if compare_arrays("", g, w, rtol, atol)[0]:
            index, shown = _first_wrong(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol, atol)
            return (
                f"Your function's values are right, but its gradient with respect to {name} is not: it "
                f"is {shown[0]}{_at(index)} where {shown[1]} is expected (case {case}).",
                GRADIENT_ADVICE,
            )
    return HIDDEN_CAUSE, HIDDEN_ADVICE


def told_types(got: list[Aval], want: list[Aval]) -> tuple[str, str]:
    """(cause, advice) for a sample case whose outputs' count, shapes or dtypes differ (the
    verifier's reading of the program, before any number is compared)."""
    if len(got) != len(want):
        return _structure(len(got), len(want))
    single = len(want) == 1
    for i, (g, w) in enumerate(zip(got, want)):
        found = _told_type(_who(single, i), tuple(g.shape), str(g.dtype), tuple(w.shape), str(w.dtype))
        if found is not None:
            return found
    return HIDDEN_CAUSE, HIDDEN_ADVICE


def _told_type(
    who: str, got_shape: tuple, got_dtype: str, want_shape: tuple, want_dtype: str
) -> tuple[str, str] | None:
    if got_shape != want_shape:
        expected = "a single number" if want_shape == () else f"an array of shape {want_shape}"
        return (
            f"{who} returns an array of shape {got_shape}, where the statement's returns {expected}.",
            "Try: reduce the result to a single number, as the statement's formula does (its sum or mean)."
            if want_shape == ()
            else f"Try: check which axes your code keeps and sums over against the output shape {want_shape}.",
        )
    if got_dtype != want_dtype:
        return (
            f"{who} returns {got_dtype} values, where the statement's returns {want_dtype}.",
            f"Try: keep the inputs' dtype ({want_dtype}) through every step: no float64, integer or .astype step.",
        )
    return None


def _structure(got: int, want: int) -> tuple[str, str]:
    if got == 0:
        return (
            "Your function returns nothing (None): a function that computes its result without a `return` "
            "statement gives back None.",
            "Try: return the result: `return ...` on the line that computes it, in every function it passes through.",
        )
    return (
        f"Your function returns {_count(got)} in another structure than the statement's, which returns {_count(want)}.",
        "Try: return exactly what the statement's signature returns: one array, not a tuple or a list.",
    )


def _who(single: bool, i: int) -> str:
    return "Your function" if single else f"Output {i} of your function"


def _told_array(who: str, got, want, rtol: float, atol: float, case: str) -> tuple[str, str] | None:
    got, want = np.asarray(got), np.asarray(want)
    typed = _told_type(who, tuple(got.shape), str(got.dtype), tuple(want.shape), str(want.dtype))
    if typed is not None:
        return typed
    if not compare_arrays("", got, want, rtol, atol)[0]:
        return None
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    bad = ~np.isfinite(g64)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        return (
            f"{who} returns {g64[index]}{_at(index)} (case {case}): a step of it overflows or divides by zero.",
            "Try: look for a division by a value that can be zero, a log or square root of one that can be zero "
            "or negative, or an exp of a large value.",
        )
    index, shown = _first_wrong(g64, w64, rtol, atol)
    return (
        f"{who} computes another value than the statement's: it returns {shown[0]}{_at(index)} where "
        f"{shown[1]} is expected (case {case}).{_pattern(g64, w64)}",
        VALUES_ADVICE,
    )


def _first_wrong(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> tuple[tuple, tuple[str, str]]:
    index = first_wrong(got, want, rtol, atol) or ()  # compare's tolerance: the same element its row names
    return index, pair(got[index], want[index])


def _pattern(got: np.ndarray, want: np.ndarray) -> str:
    """What the two show together, where it is plain: the same factor on every element (of a single
    number, only a whole one: any two numbers have some ratio), or the sign flipped."""
    if not np.all(np.abs(want) > 1e-12):
        return ""
    ratio = got / want
    factor = float(np.median(ratio))
    if not np.allclose(ratio, factor, rtol=1e-3) or abs(factor - 1.0) < 1e-3:
        return ""
    if abs(factor + 1.0) < 1e-3:
        return " It is the expected value with its sign flipped."
    whole = max(abs(factor), 1 / abs(factor))
    if got.size == 1 and not (whole < 1e5 and abs(whole - round(whole)) <= 1e-4 * whole):
        return ""  # a whole factor such as a count of elements; a huge ratio is close to some whole number
    shown = f"{factor:.4g}" if abs(factor) >= 1 else f"1/{1 / factor:.4g}"
    every = "It is" if got.size == 1 else "Every element is"
    return (
        f" {every} {shown} times the expected one: look for a scale, such as a sum where the statement takes a "
        f"mean, or a factor missing or added."
    )


def _at(index: tuple) -> str:
    return f" at index {index}" if index else ""


def _count(n: int) -> str:
    return "one array" if n == 1 else f"{n} arrays"
