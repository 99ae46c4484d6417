"""What a program saves for its backward pass, compared by value: the trusted side's reading.

The verifier runs the exported forward program on the case's inputs and on hidden ones; every
residual it returns is reduced there to a fingerprint that does not depend on layout or order (its
sorted values, sampled at fixed ranks, with their mean and root mean square). The parent compares
the fingerprints of a submission's residuals with those of the reference's on the same hidden
inputs, so "saves what the required policy saves" is decided by values that no submitted code
reported: a label put on the wrong value, a constant that is not rebuilt, a checkpoint around the
wrong part or a hand-written rule that keeps other values all differ here, whatever the child said.

Two values are the same when they have the same element type, the same number of elements, the
same memory (device or host) and fingerprints equal within a tolerance, or proportional (``2 * h``
where the reference keeps ``h``: how plain autodiff keeps the derivative of ``h ** 2`` is style,
not policy). A residual whose fingerprint is the same on the case's inputs and on the hidden ones
does not depend on the inputs: a constant, part of the program rather than saved by any policy;
the problem says whether constants count (``[checks.residuals] constants``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .records import Record

RANKS = 33  # sampled ranks of the sorted values: enough to tell apart values of one type
RTOL = 1e-4
ATOL = 1e-5


@dataclass(frozen=True)
class SavedValue(Record):
    """One residual as the verifier saw it: its type, where it is kept, and its fingerprints on
    the case's inputs and on the hidden inputs."""

    dtype: str
    size: int  # elements
    bytes: int
    memory: str
    public: np.ndarray  # float64 [RANKS + 2]
    hidden: np.ndarray

    @property
    def constant(self) -> bool:
        """The same whatever the inputs: part of the program (a closed-over table, a literal)."""
        return bool(np.array_equal(self.public, self.hidden))

    def _check(self) -> str | None:
        if self.size < 0 or self.bytes < 0:
            return "a negative size"
        if not all(f.dtype == np.float64 and f.shape == (RANKS + 2,) for f in (self.public, self.hidden)):
            return "fingerprints: the sampled ranks, the mean and the root mean square"
        return None


def fingerprint(array) -> np.ndarray:
    """Sorted values at ``RANKS`` evenly spaced ranks, then the mean and the root mean square."""
    flat = np.sort(np.asarray(array, dtype=np.float64).ravel())
    if flat.size == 0:
        return np.zeros(RANKS + 2)
    # interpolated between neighbours, so that the fingerprint of -v is that of v reversed
    ranks = np.interp(np.linspace(0, flat.size - 1, RANKS), np.arange(flat.size), flat)
    return np.concatenate([ranks, [flat.mean(), np.sqrt(np.mean(flat * flat))]])


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return bool(np.array_equal(a, b, equal_nan=True))
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    return bool(np.all(np.abs(a - b) <= ATOL * scale + RTOL * np.abs(b)))


def _proportional(a: np.ndarray, b: np.ndarray) -> bool:
    """``a`` is ``c * b`` for a constant ``c`` other than zero (sorted values reverse for c < 0)."""
    ranks_a, ranks_b = a[:RANKS], b[:RANKS]
    for _sign, other in ((1.0, ranks_b), (-1.0, -ranks_b[::-1])):
        rms_b = float(np.sqrt(np.mean(other * other)))
        if rms_b == 0.0:
            continue
        c = float(np.dot(ranks_a, other) / np.dot(other, other))
        if c > 0 and _close(ranks_a, c * other):
            return True
    return False


def same(mine: SavedValue, theirs: SavedValue) -> bool:
    """The same value, kept in the same memory (on the hidden inputs, the ones no child saw)."""
    if (mine.dtype, mine.size, mine.memory) != (theirs.dtype, theirs.size, theirs.memory):
        return False
    return _close(mine.hidden, theirs.hidden) or _proportional(mine.hidden, theirs.hidden)


def same_elsewhere(mine: SavedValue, theirs: SavedValue) -> bool:
    """The same value, kept in another memory than the reference keeps it in."""
    if (mine.dtype, mine.size) != (theirs.dtype, theirs.size) or mine.memory == theirs.memory:
        return False
    return _close(mine.hidden, theirs.hidden) or _proportional(mine.hidden, theirs.hidden)


@dataclass
class Pairing:
    """The submission's residuals paired with the reference's by value (indices into each list)."""

    pairs: list[tuple[int, int]]
    extra: list[int]  # the submission's, with no partner: saved where the reference does not
    missing: list[int]  # the reference's, with no partner
    elsewhere: list[tuple[int, int]]  # the same value in another memory: (submission's, reference's)

    @property
    def matches(self) -> bool:
        return not self.extra and not self.missing and not self.elsewhere


def counted(values: list[SavedValue], constants: bool) -> list[int]:
    """The residuals that count: all, or those that depend on the inputs."""
    return [i for i, v in enumerate(values) if constants or not v.constant]


def pair(mine: list[SavedValue], theirs: list[SavedValue], *, constants: bool = False) -> Pairing:
    """Pair each counted residual of the submission with one of the reference's of the same value.

    Greedy in the reference's order, largest first, exact matches before proportional ones: the
    tolerance is far below the difference between two values of a program, so the order only
    matters between equal values, which are interchangeable."""
    left = counted(mine, constants)
    right = counted(theirs, constants)
    pairs = []
    for strict in (True, False):
        for j in sorted(right, key=lambda j: -theirs[j].bytes):
            test = (
                (lambda a, b: _close(a.hidden, b.hidden) and (a.dtype, a.size, a.memory) == (b.dtype, b.size, b.memory))
                if strict
                else same
            )
            i = next((i for i in left if test(mine[i], theirs[j])), None)
            if i is not None:
                pairs.append((i, j))
                left.remove(i)
                right.remove(j)
    elsewhere = []
    for j in list(right):
        i = next((i for i in left if same_elsewhere(mine[i], theirs[j])), None)
        if i is not None:
            elsewhere.append((i, j))
            left.remove(i)
            right.remove(j)
    return Pairing(sorted(pairs), left, right, elsewhere)
