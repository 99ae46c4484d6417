"""Runners for tests that watch or tamper with what the real one does."""

from dataclasses import replace

from judge.runners.boundary import Runner
from judge.runners.zygote_runner import shared_runner


class Wrapping(Runner):
    """The shared zygote runner; a test overrides what it watches or forges (``run``, ``prepare``)."""

    name = "wrapping the warm zygote"

    def __init__(self):
        self.inner = shared_runner()

    def prepare(self, limits, role="run"):
        return self.inner.prepare(limits, role)

    def missing_layers(self):
        return self.inner.missing_layers()


class ForgedReport(Wrapping):
    """A child whose code escaped the gate and rewrote its report: every child request is answered
    with the honest ``reference``'s report of the same cases, while the programs the verifier runs
    are the submission's own (issue 21). Acceptance must not change: it rests on the trusted side."""

    name = "forging the child's report"

    def __init__(self, reference: str, inner=None):
        self.inner = inner or shared_runner()
        self.reference = reference
        self.remat3 = self.inner.remat3  # the expected results are the inner runner's
        self.forged = 0  # child replies replaced by the reference's

    def run(self, request, limits):
        real = self.inner.run(request, limits)
        if request.get("mode") is not None or not _traced(real):
            return real
        honest = self.inner.run(dict(request, source=self.reference), limits)
        if not _traced(honest):
            return real
        forged = dict(honest.response, programs=real.response.get("programs"))
        self.forged += 1
        return replace(real, response=forged)


def _traced(result) -> bool:
    """A child that traced its cases (``messages.Traced``). The check once read a ``status`` field the
    replies no longer have, and the forged mode then forged nothing: ``forged`` counts what it did."""
    return result.outcome == "ok" and isinstance(result.response, dict) and result.response.get("kind") == "traced"
