"""Similar code between learners, with copydetect (pinned): winnowed fingerprints of the tokens, as
MOSS does, with names, strings and comments normalised away by copydetect's own filter, so renaming
variables or rewording comments does not hide shared code.

What everyone was given is boilerplate (MOSS's ``-b``, Dolos's template): its k-grams are removed
from every fingerprint, so two learners who kept it are not similar for it. That is the statement's
code blocks, each problem's starter code and reference solution (unless the instructor unticks
them), and the base file the instructor gives on the assignment (a handout, the lecture's code);
the check records what it left out, and the report lists it.

Plain Python over sources (no database): the task that runs a check feeds it. copydetect hashes
k-grams with Python's ``hash``, which differs between processes, so fingerprints are compared in
the process that made them and never stored; the side-by-side view makes its two again.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.defaults import NOISE_THRESHOLD
from copydetect.utils import highlight_overlap
from django.utils.safestring import SafeString, mark_safe
from markupsafe import escape

# copydetect's noise threshold (shorter shared runs of tokens are not reported: `import jax` is
# everyone's), and MOSS's guarantee of 30: a shared run that long is always found. The window of
# the winnowing follows from the two, as in copydetect's own detector.
K = NOISE_THRESHOLD
GUARANTEE = 30
WINDOW = GUARANTEE - K + 1
# Candidates are ranked on shared fingerprints first (cheap set intersections); this many per
# problem, best first, are then compared in full (copydetect's overlap, which the page shows).
KEPT_PER_PROBLEM = 50
_NAME = "submission.py"  # the file name copydetect picks its lexer by: Python
_FENCED = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1\s*$", re.S | re.M)


def statement_snippets(statement: str) -> list[str]:
    """The code blocks of a Markdown statement (fenced with ``` or ~~~)."""
    return [found.group(2) for found in _FENCED.finditer(statement)]


def boilerplate(texts: list[str]) -> np.ndarray:
    """The hashes of every k-gram of what everyone was given (copydetect's boilerplate: all of
    them, not a winnowed sample, so that none of it is left to match)."""
    hashes = [CodeFingerprint(_NAME, K, 1, fp=io.StringIO(text)).hashes for text in texts if text.strip()]
    return np.unique(np.array([h for found in hashes for h in found], dtype=np.int64))


@dataclass(frozen=True)
class Given:
    """One text everyone was given, left out of the comparison: ``what`` it is, for ``problem``
    (a slug; "" for the assignment's base file, which counts for every problem)."""

    what: str
    text: str
    problem: str = ""

    @property
    def lines(self) -> int:
        return sum(1 for line in self.text.splitlines() if line.strip())

    def to_dict(self) -> dict:
        return {"problem": self.problem, "what": self.what, "lines": self.lines}


STARTER, STATEMENT, REFERENCE, BASE = "starter code", "statement's code", "reference solution", "base file"


def what_was_given(assignment, slug: str, version) -> list[Given]:
    """What the check leaves out of one problem's submissions: its statement's code blocks, its
    starter and its reference (as the assignment says: ``similarity_excludes_starter``,
    ``similarity_excludes_reference``) and the assignment's ``similarity_base``; empty texts left
    out. Reads the fields of loaded objects only."""
    found = [Given(STATEMENT, "\n".join(statement_snippets(version.statement)), slug)]
    if assignment.similarity_excludes_starter:
        found.append(Given(STARTER, version.starter, slug))
    if assignment.similarity_excludes_reference:
        found.append(Given(REFERENCE, version.reference, slug))
    found.append(Given(BASE, assignment.similarity_base))
    return [item for item in found if item.text.strip()]


@dataclass(frozen=True)
class Boilerplate:
    """What was given, as the comparison leaves it out: the hashes of its k-grams, and its lines.
    The hashes alone would leave the k-grams that straddle given code and the learner's own (the
    last tokens of a pasted handout and the first of the solution after it), which two learners
    who pasted the same handout above the same starter's ``def`` share: so a submission's lines
    that are lines of what was given are blanked before it is fingerprinted (same length, so that
    the side-by-side view marks the source as written)."""

    hashes: np.ndarray
    lines: frozenset[str]


def given(items: list[Given]) -> Boilerplate:
    """The boilerplate of what was given."""
    texts = [item.text for item in items]
    lines = frozenset(line.strip() for text in texts for line in text.splitlines() if line.strip())
    return Boilerplate(boilerplate(texts), lines)


def _blanked(source: str, lines: frozenset[str]) -> str:
    kept = []
    for line in source.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        kept.append(" " * len(body) + line[len(body) :] if body.strip() in lines else line)
    return "".join(kept)


def fingerprint(source: str, given: Boilerplate) -> CodeFingerprint:
    return CodeFingerprint(_NAME, K, WINDOW, boilerplate=given.hashes, fp=io.StringIO(_blanked(source, given.lines)))


@dataclass(frozen=True)
class Pair:
    """Two learners' most similar submissions: the share of each one's fingerprinted code that the
    other has too (copydetect's similarities; they differ when one program is longer)."""

    first_learner: int
    second_learner: int
    first_submission: int
    second_submission: int
    first_share: float
    second_share: float

    @property
    def similarity(self) -> float:
        return max(self.first_share, self.second_share)


def rank(sources: dict[int, dict[int, str]], given: Boilerplate, kept: int = KEPT_PER_PROBLEM) -> list[Pair]:
    """``sources``: {learner id: {submission id: source}} on one problem (their accepted and their
    last submission). The ``kept`` most similar pairs of learners, most similar first; a pair's
    figure is its most similar two submissions'."""
    prints = {
        learner: {sid: fingerprint(text, given) for sid, text in mine.items()} for learner, mine in sources.items()
    }
    merged = {learner: set().union(*(p.hashes for p in mine.values())) for learner, mine in prints.items()}
    scored = []
    for a, b in combinations(sorted(merged), 2):
        smaller = min(len(merged[a]), len(merged[b]))
        shared = len(merged[a] & merged[b]) if smaller else 0
        if shared:
            scored.append((shared / smaller, a, b))
    scored.sort(reverse=True)
    pairs = []
    for _, a, b in scored[:kept]:
        best = None
        for (sa, pa), (sb, pb) in ((x, y) for x in prints[a].items() for y in prints[b].items()):
            _, (share_a, share_b), _ = compare_files(pa, pb)
            found = Pair(a, b, sa, sb, float(share_a), float(share_b))
            if best is None or found.similarity > best.similarity:
                best = found
        if best is not None and best.similarity > 0:
            pairs.append(best)
    return sorted(pairs, key=lambda p: (-p.similarity, p.first_learner, p.second_learner))


@dataclass(frozen=True)
class SideBySide:
    first_html: SafeString  # the source, escaped, its shared regions in <mark class="shared">
    second_html: SafeString
    first_share: float
    second_share: float


def side_by_side(first: str, second: str, given: Boilerplate) -> SideBySide:
    """Two sources with the code they share marked. Every character of the sources is escaped
    (markupsafe, in copydetect's ``highlight_overlap``): only the marks are markup."""
    _, (share_a, share_b), (slices_a, slices_b) = compare_files(fingerprint(first, given), fingerprint(second, given))
    return SideBySide(_marked(first, slices_a), _marked(second, slices_b), float(share_a), float(share_b))


def _marked(source: str, slices) -> SafeString:
    slices = np.asarray(slices, dtype=np.int64).reshape(2, -1)
    if slices.shape[1] == 0:
        return mark_safe(str(escape(source)))  # noqa: S308 - nothing shared: the source, escaped
    html, _ = highlight_overlap(source, slices, '<mark class="shared">', "</mark>", escape_html=True)
    return mark_safe(html)  # noqa: S308 - every character of the source was escaped by highlight_overlap
