"""Numeric comparison of a submission's outputs and gradients with the reference's."""

from __future__ import annotations

import re

import numpy as np

from ..data.evidence import Aval
from ..data.messages import TracedCase


def _fmt(x, digits: int = 7) -> str:
    if not np.isfinite(x):
        return str(x)
    return np.format_float_positional(float(x), precision=digits, unique=False, fractional=False, trim="-")


def pair(got, want) -> tuple[str, str]:
    """``got`` and ``want`` with the fewest significant digits (4 at least) that tell them apart.
    A float32's seventh digit is rounding noise, which moves with how XLA splits a sum across
    threads: printed, it would make the same mistake read differently from one run to the next."""
    for digits in range(4, 10):
        shown = _fmt(got, digits), _fmt(want, digits)
        if shown[0] != shown[1]:
            return shown
    return shown


def compare_arrays(label: str, got, want, rtol: float, atol: float) -> tuple[str | None, float]:
    """None and the max abs error when ``got`` matches ``want``; else a learner-facing message."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"{label} has shape {tuple(got.shape)}, expected {tuple(want.shape)}", float("inf")
    if got.dtype != want.dtype:
        return f"{label} has dtype {got.dtype}, expected {want.dtype}", float("inf")
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    bad_values = ~np.isfinite(g64)
    if bad_values.any():
        index = tuple(int(i) for i in np.argwhere(bad_values)[0])
        return f"{label} contains {_fmt(g64[index])} at index {index}", float("inf")
    error = np.abs(g64 - w64)
    max_error = float(error.max()) if error.size else 0.0
    index = first_wrong(g64, w64, rtol, atol)
    if index is not None:
        scale = _scale(w64)  # for the message only: an accepted case's compare reads it once, in first_wrong
        shown = pair(g64[index], w64[index])
        scaled = f"{atol:g} x {scale:.3g} (the largest magnitude)" if scale > 1.0 else f"{atol:g}"
        return (
            f"{label} differs at index {index}: got {shown[0]}, expected {shown[1]} "
            f"(max abs error {max_error:.3g}, tolerance atol={scaled}, rtol={rtol:g})"
        ), max_error
    return None, max_error


# What each kind of difference says on a hidden case: the label and the kind, never a figure. The
# values a submission returns there are its own to choose, so any number read from them (an element,
# an error's size, an index, a shape, a structure) could carry the case's sizes out.
_HIDDEN_KINDS = (
    (" differs at index ", "differs from the required values beyond the tolerance"),
    (" has shape ", "has another shape than required"),
    (" has dtype ", "has another dtype than required"),
    (" contains ", "contains NaN or infinity"),
    (" has structure ", "has another structure than required"),
    (" array(s), expected ", "has another number of arrays than required"),
)
_LABEL = re.compile(r"^(?P<label>the output|output \d+|the gradient with respect to [A-Za-z_][A-Za-z0-9_]*)")


def without_figures(message: str) -> str:
    """A comparison's message for a hidden case: which value differs and how, without a number."""
    label = _LABEL.match(message)
    for marker, kind in _HIDDEN_KINDS:
        if marker in message:
            return f"{label.group('label') if label else 'the output'} {kind}"
    return "your values or gradients differ from the required ones"


def _scale(want: np.ndarray) -> float:
    # A float32 sum's rounding error grows with the magnitudes summed, not with the element it
    # lands in: a gradient whose entries reach 7 carries errors near 1e-5 in every entry, its
    # small ones included, whatever order a right program adds in (a hand-written softmax against
    # jax.nn.softmax, on the verifier's hidden inputs and cotangent). So atol is taken relative to
    # the array's largest magnitude when that exceeds 1; a wrong program is off by far more.
    return max(1.0, float(np.abs(want).max())) if want.size else 1.0


def first_wrong(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> tuple | None:
    """The index of the first element of ``got`` (float64, finite, of ``want``'s shape) outside
    the tolerance; None when every element is within it."""
    wrong = np.abs(got - want) > atol * _scale(want) + rtol * np.abs(want)
    return tuple(int(i) for i in np.argwhere(wrong)[0]) if wrong.any() else None


def compare_types(got: list[Aval], want: list[Aval]) -> str | None:
    """The outputs' dtypes and shapes (as the verifier read them from the program) against the
    reference's; None when they agree."""
    if len(got) != len(want):
        return f"the output has {len(got)} array(s), expected {len(want)}"
    single = len(want) == 1
    for i, (g, w) in enumerate(zip(got, want)):
        label = "the output" if single else f"output {i}"
        if list(g.shape) != list(w.shape):
            return f"{label} has shape {tuple(g.shape)}, expected {tuple(w.shape)}"
        if g.dtype != w.dtype:
            return f"{label} has dtype {g.dtype}, expected {w.dtype}"
    return None


def compare_outputs(got: TracedCase, want: TracedCase, wrt_names, rtol: float, atol: float) -> tuple[str | None, float]:
    """Values (``value``) and gradients (``grads``) of two cases of the same inputs."""
    if got.treedef != want.treedef:
        return f"the output has structure {got.treedef}, expected {want.treedef}", float("inf")
    worst = 0.0
    single = len(want.value) == 1
    for i, (g, w) in enumerate(zip(got.value, want.value)):
        message, err = compare_arrays("the output" if single else f"output {i}", g, w, rtol, atol)
        worst = max(worst, err)
        if message:
            return message, worst
    for name, g, w in zip(wrt_names, got.grads, want.grads):
        message, err = compare_arrays(f"the gradient with respect to {name}", g, w, rtol, atol)
        worst = max(worst, err)
        if message:
            return message, worst
    return None, worst
