"""Two attempts' code side by side as a list of lines, each marked kept, removed or added
(difflib's line matching), for the compare page: a table a screen reader reads row by row."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

KEPT, REMOVED, ADDED = "kept", "removed", "added"


@dataclass(frozen=True, slots=True)
class DiffLine:
    change: str  # KEPT, REMOVED or ADDED
    old_number: int | None  # its line in the older attempt (None when added)
    new_number: int | None  # its line in the newer attempt (None when removed)
    text: str


def diff_lines(old: str, new: str) -> list[DiffLine]:
    """Every line of both texts in reading order: what stayed, what the newer one removed and
    what it added (a changed line is its old line removed, then its new line added)."""
    a, b = old.splitlines(), new.splitlines()
    lines: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            lines += [DiffLine(KEPT, i + 1, j + 1, a[i]) for i, j in zip(range(i1, i2), range(j1, j2))]
            continue
        lines += [DiffLine(REMOVED, i + 1, None, a[i]) for i in range(i1, i2)]
        lines += [DiffLine(ADDED, None, j + 1, b[j]) for j in range(j1, j2)]
    return lines
