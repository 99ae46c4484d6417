"""The corpus's child runs, each run once per process: a case graded plainly and graded again with
its report forged sends its child the same request, and the forged grading of every case of a
problem sends the honest reference the same requests. The grading itself (the verifier's own run
of the programs, every check of the parent) is done each time; only a child's reply to a request
already answered is read again, as a fresh copy. A problem's cases run on one process
(tests/conftest.py's groups), so the cache is this process's.
"""

from __future__ import annotations

import hashlib
import pickle
import threading

from judge.runners.boundary import Runner


class ChildRunsOnce(Runner):
    name = "the warm zygote, a child run once per request"

    def __init__(self, inner):
        self.inner = inner
        self.remat3 = inner.remat3  # the expected results are the inner runner's
        self._replies: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def prepare(self, limits, role="run"):
        return self.inner.prepare(limits, role)

    def missing_layers(self):
        return self.inner.missing_layers()

    def run(self, request, limits):
        key = hashlib.sha256(pickle.dumps((request, limits))).hexdigest()
        with self._lock:
            kept = self._replies.get(key)
        if kept is not None:
            return pickle.loads(kept)
        result = self.inner.run(request, limits)
        if result.outcome == "ok":  # a child stopped by a limit may be the machine's load: run it again
            with self._lock:
                self._replies[key] = pickle.dumps(result)
        return result
