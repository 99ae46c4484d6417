"""Compiled programs kept by the grading parent, so that a program graded again is not compiled again.

XLA's compilation is the largest single step of a warm grading (about 60-70 ms of the verifier's
100-120 on ``checkpoint_dot_policy``). A learner resubmits the same program often (a comment
changed, a sample run then a submission, a validation run again), and the verifier then
compiles the very same bytes again. So the verifier sends back what it compiled (XLA's own
serialized executable, opaque to the parent) and the parent keeps it, keyed by what it sent:
the two exported programs' bytes, the differentiated positions and, per case, the types of the
inputs and cotangents and the bundle's program that runs it. A later request with the same key
carries the executable, and the verifier loads it instead of compiling. Every check still runs:
the programs are read and checked and lowered as before (what the cost walk reads), and the
loaded program is run on the case's inputs and on hidden ones.

The trust argument, since loading an executable runs code: an entry is only written from a
verifier's answer, and a verifier's only untrusted input is the exported bytes of a
submission. A verifier that those bytes had subverted could write a harmful entry, but only
under the key of those same bytes, and entries are kept per scope (one learner, in the site):
the entry can only ever be loaded by a later verifier given the same bytes by the same learner,
who could subvert that verifier the same way without the cache. Never does the parent read the
executable; it stores and forwards bytes. A key is computed by the parent from what it sends,
never taken from an answer.

Bounded: entries of at most ``ENTRY_CAP`` bytes, at most ``TOTAL_CAP`` bytes in all, least
recently used dropped first. A process-wide store, since a worker's grading parent lives long.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import numpy as np

from ..data.messages import XLA_ESTIMATES

ENTRY_CAP = 8 << 20  # an executable larger than this is compiled each time (a large program's
# compile is long anyway, and its bytes would crowd out many small ones)
TOTAL_CAP = 96 << 20


@dataclass
class Entry:
    executable: np.ndarray  # uint8: as the verifier sent it
    estimates: dict | None = None  # XLA's own figures of the first case's step, once asked for


@dataclass
class CompiledPrograms:
    """Executables by (scope, key of the request); ``hits`` and ``misses`` count lookups."""

    total_cap: int = TOTAL_CAP
    entry_cap: int = ENTRY_CAP
    hits: int = 0
    misses: int = 0
    _entries: OrderedDict = field(default_factory=OrderedDict)
    _bytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, scope: str, key: str) -> Entry | None:
        with self._lock:
            entry = self._entries.get((scope, key))
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end((scope, key))
            self.hits += 1
            return entry

    def put(self, scope: str, key: str, executable: np.ndarray, estimates: dict | None = None) -> None:
        size = int(executable.nbytes)
        if not size or size > self.entry_cap:
            return
        with self._lock:
            old = self._entries.pop((scope, key), None)
            if old is not None:
                self._bytes -= int(old.executable.nbytes)
                estimates = estimates or old.estimates
            self._entries[(scope, key)] = Entry(executable, estimates)
            self._bytes += size
            while self._bytes > self.total_cap:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= int(dropped.executable.nbytes)

    def remember_estimates(self, scope: str, key: str, estimates: dict) -> None:
        with self._lock:
            entry = self._entries.get((scope, key))
            if entry is not None:
                entry.estimates = dict(estimates)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class Asked:
    """One verifier request's place in the store: what was sent along, what to keep of the answer."""

    scope: str
    key: str
    entry: Entry | None
    estimates_wanted: bool


def ask(scope: str | None, request, store: CompiledPrograms | None = None):
    """``request`` (a ``VerifyRequest``) with the kept executable, or asking to keep what it compiles;
    and the ``Asked`` to hand to ``answered`` with the verifier's answer. Only a request that runs its
    program is kept (a figures-only request compiles nothing); without a scope, nothing is kept."""
    store = store or STORE
    if scope is None or not request.numbers:
        return request, None
    k = key(request.fwd, request.bwd, request.wrt, request.cases)
    entry = store.get(scope, k)
    asked = Asked(scope, k, entry, request.estimates)
    if entry is None:
        return replace(request, keep=True), asked
    known = request.estimates and entry.estimates is not None
    return replace(request, compiled=entry.executable, estimates=request.estimates and not known), asked


def answered(asked: Asked | None, request, response, store: CompiledPrograms | None = None) -> None:
    """Keep what the verifier compiled, and put XLA's estimates that were kept instead of computed
    again into the first program's cases (where the verifier would have put them)."""
    store = store or STORE
    if asked is None or response.error is not None or not response.checked:
        return
    if response.compiled is not None and asked.entry is None:
        store.put(asked.scope, asked.key, response.compiled)
    if not asked.estimates_wanted:
        return
    firsts = [found for sent, found in zip(request.cases, response.cases) if sent.program == 0 and found.cost]
    if asked.entry is not None and asked.entry.estimates is not None:
        for found in firsts:
            found.cost = replace(found.cost, **asked.entry.estimates)
    elif firsts:
        store.remember_estimates(asked.scope, asked.key, {k: getattr(firsts[0].cost, k) for k in XLA_ESTIMATES})


def key(fwd: np.ndarray, bwd: np.ndarray, wrt: list[int], cases) -> str:
    """What makes two verifier requests compile the same program: the programs' bytes, the
    differentiated positions, the platform the verifier compiles for and, per case of the bundle, the
    types of its inputs and cotangent and the program that runs it (the bundle is lowered on one
    case per program, so the cases' order within a program does not change it; their values never do)."""
    digest = hashlib.sha256()
    for part in (np.asarray(fwd, np.uint8).tobytes(), np.asarray(bwd, np.uint8).tobytes()):
        digest.update(len(part).to_bytes(8, "big") + part)
    described = [
        repr(wrt),
        os.environ.get("JUDGE_JAX_PLATFORMS", ""),
        *(
            repr((c.program, [_type(a) for a in c.inputs], [_type(t) for t in c.cotangent]))
            for c in sorted(cases, key=lambda c: c.program)
            if c is _first_of(cases, c.program)
        ),
    ]
    digest.update("\n".join(described).encode())
    return digest.hexdigest()


def _type(array) -> tuple:
    array = np.asarray(array)
    return (array.dtype.name, array.shape)


def _first_of(cases, program: int):
    return next(c for c in cases if c.program == program)


STORE = CompiledPrograms()
